import { identityKindOf, identityNumberProblem } from '../../core/identityNumbers.ts';
import type { IdentityKind } from '../../core/identityNumbers.ts';
import type { FieldProblem } from '../../errors.ts';
import type { DebitFrequency } from './mandates.ts';

/**
 * The rules of a DebiCheck mandate (docs/design/mandates.md, "DebiCheck"), pure: its contract types, what its terms
 * must be for the bank to authenticate them, the states its authentication goes through, and whether a collection
 * may be made under it.
 */

/**
 * DebiCheck's contract types (api.netcash.co.za, "DebiCheck Authentication – without Netcash eMandate"): fixed (the
 * instalment never changes), variable (it may change, up to the maximum) and usage-based.
 */
export const DEBICHECK_CONTRACT_TYPES = ['fixed', 'variable', 'usage'] as const;
export type DebiCheckContractType = (typeof DEBICHECK_CONTRACT_TYPES)[number];

/**
 * Where the bank's authentication is: `pending` while the debtor has not answered their bank, `authenticated` when
 * they approved, `declined` when they refused, `expired` when no answer came in time, `cancelled` once either side
 * ended it. Null on a DebiCheck mandate not registered yet.
 */
export const DEBICHECK_STATUSES = ['pending', 'authenticated', 'declined', 'expired', 'cancelled'] as const;
export type DebiCheckStatus = (typeof DEBICHECK_STATUSES)[number];

/**
 * How long a registration may wait for the debtor's answer: Netcash's TT1 answers within 120 seconds, or with a
 * delayed response within a day (help.netcash.co.za, "DebiCheck"). Past it, the run asks once more and, still
 * without an answer, the authentication is expired.
 */
export const DEBICHECK_PENDING_HOURS = 24;

/** Tracking: the bank watches the account for funds up to 10 days after a failed collection (www.netcash.co.za). */
export const DEBICHECK_TRACKING_DAYS_MAX = 10;

/** The DebiCheck part of a mandate's request, as the wire gave it. */
export interface DebiCheckInput {
  contractType?: string | null;
  trackingDays?: number | null;
  firstAmountMinor?: number | null;
  idKind?: string | null;
  idNumber?: string | null;
}

/** What a DebiCheck mandate agrees beyond the debit terms; the identity number only as its last three characters. */
export interface DebiCheckTerms {
  contractType: DebiCheckContractType;
  trackingDays: number;
  /** The first collection's amount, when it differs from the instalment; null: the instalment. */
  firstAmountMinor: number | null;
  idKind: IdentityKind;
  idEnding: string;
}

/** The bank's authentication of a DebiCheck mandate, as far as it went. */
export interface DebiCheckAuthentication {
  status: DebiCheckStatus | null;
  gatewayId: number | null;
  /** The gateway's reference of the authentication (Netcash's NC…): collections, amendments and cancels name it. */
  contractReference: string | null;
  requestedAt: string | null;
  /** Until when a pending authentication waits for the debtor. */
  expiresAt: string | null;
  answeredAt: string | null;
  /** The gateway's or the bank's words on the last answer (a refusal's code), when it gave any. */
  reason: string | null;
}

export interface DebiCheckMandate extends DebiCheckTerms, DebiCheckAuthentication {}

/** The debit terms the DebiCheck rules read. */
export interface DebitTermsForDebiCheck {
  frequency: DebitFrequency;
  actionDay: number;
  amountMinor: number;
  maxAmountMinor: number;
  variableAmounts: boolean;
  variableAmountsGiven: boolean;
}

/** The contract type a wire text names (any letter case; usage-based for usage), or undefined. */
export function debiCheckContractTypeOf(text: string): DebiCheckContractType | undefined {
  const key = text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]/g, '');
  if (key === 'usagebased') return 'usage';
  return DEBICHECK_CONTRACT_TYPES.find((type) => type === key);
}

/**
 * Every DebiCheck rule of the request, reported by wire field, or the terms: a contract type and the debtor's
 * identity number make a mandate a DebiCheck one; the collection day must be one Netcash's day codes name (monthly,
 * 1 to 31: docs/gateways/netcash.md, "DebiCheck"); a fixed contract collects a fixed instalment, the others vary up
 * to the maximum (which mandates.ts keeps within 1.5 times the instalment).
 */
export function checkedDebiCheck(
  input: DebiCheckInput,
  debit: DebitTermsForDebiCheck,
  problems: FieldProblem[],
): { terms: DebiCheckTerms; idNumber: string } | null {
  const given = [
    input.contractType,
    input.idKind,
    input.idNumber,
    input.trackingDays,
    input.firstAmountMinor,
  ];
  if (given.every((value) => value === undefined || value === null || value === '')) return null;
  const contractType = debiCheckContractTypeOf(input.contractType ?? '');
  if (!contractType) {
    problems.push({
      field: 'DebiCheckContractType',
      message: `must be one of ${DEBICHECK_CONTRACT_TYPES.join(', ')} for a DebiCheck mandate`,
    });
  } else if (debit.variableAmountsGiven && debit.variableAmounts !== (contractType !== 'fixed')) {
    problems.push({
      field: 'debit_VariableAmts',
      message: `must be ${contractType !== 'fixed'} for a ${contractType} DebiCheck contract`,
    });
  }
  if (debit.frequency !== 'Monthly' || debit.actionDay < 1 || debit.actionDay > 31) {
    problems.push({
      field: 'debit_ActionDay',
      message: 'must be a day of the month, 1 to 31, with debit_Frequency Monthly for a DebiCheck mandate',
    });
  }
  const trackingDays = input.trackingDays ?? 0;
  if (!Number.isInteger(trackingDays) || trackingDays < 0 || trackingDays > DEBICHECK_TRACKING_DAYS_MAX) {
    problems.push({
      field: 'DebiCheckTrackingDays',
      message: `must be 0 to ${DEBICHECK_TRACKING_DAYS_MAX} days`,
    });
  }
  const first = input.firstAmountMinor ?? null;
  if (first !== null && (first <= 0 || first > debit.maxAmountMinor)) {
    problems.push({ field: 'DebiCheckFirstAmt', message: 'must be above 0 and at most debit_MaxAmt' });
  }
  const identity = checkedIdentity(input, problems);
  if (!contractType || !identity) return null;
  return {
    terms: {
      contractType,
      trackingDays,
      firstAmountMinor: first === debit.amountMinor ? null : first,
      idKind: identity.kind,
      idEnding: identity.number.slice(-3),
    },
    idNumber: identity.number,
  };
}

/** The debtor's identity number: a South-African ID number (checked with its date and digit) or a passport's. */
function checkedIdentity(
  input: DebiCheckInput,
  problems: FieldProblem[],
): { kind: IdentityKind; number: string } | null {
  const kind = identityKindOf(input.idKind ?? '');
  if (!kind) {
    problems.push({ field: 'DebiCheckIdType', message: 'must be sa_id or passport for a DebiCheck mandate' });
  }
  const number = (input.idNumber ?? '').replace(/[\s-]/g, '').toUpperCase();
  if (number === '') {
    problems.push({ field: 'DebiCheckIdNumber', message: 'is required for a DebiCheck mandate' });
    return null;
  }
  if (!kind) return null;
  // The message never repeats the number: a refusal is logged.
  const problem = identityNumberProblem(kind, number);
  if (problem) {
    problems.push({ field: 'DebiCheckIdNumber', message: problem });
    return null;
  }
  return { kind, number };
}

/** Netcash's collection day code of a monthly mandate's day (its DebiCheckOptions.CollectionFrequencyDayCodes). */
export const collectionDayCode = (actionDay: number): string => `MNTH_${String(actionDay).padStart(2, '0')}`;

/**
 * Why the mandate's authentication allows no collection, or undefined when it allows one: only an authenticated
 * DebiCheck mandate is collected as DebiCheck (docs/design/mandates.md, "Checks at build time").
 */
export function debiCheckCollectionProblem(authentication: DebiCheckAuthentication): string | undefined {
  const { status } = authentication;
  if (status === 'authenticated') return undefined;
  if (status === null) return 'its DebiCheck authentication was never asked of the bank';
  if (status === 'pending')
    return `its DebiCheck authentication is pending until ${authentication.expiresAt}`;
  return `its DebiCheck authentication is ${status}`;
}

/** Whether an authentication in this state may still change by itself (the run asks about it). */
export const isDebiCheckWaiting = (status: DebiCheckStatus | null): boolean => status === 'pending';
