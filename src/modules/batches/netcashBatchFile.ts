import { minorToDecimalText } from '../../core/money.ts';
import {
  NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
  buildNetcashDebitOrderFile,
  netcashLineProblems,
  netcashTextProblem,
} from './bankFiles/netcashDebitOrder.ts';
import type { NetcashAccountType, NetcashDebitLine } from './bankFiles/netcashDebitOrder.ts';
import { buildNetcashDebiCheckFile } from './bankFiles/netcashDebiCheck.ts';
import {
  NETCASH_DEBIT_TYPES,
  NETCASH_UNPAID_TYPE,
  parseNetcashStatement,
} from './bankFiles/netcashStatement.ts';
import type { NetcashStatementEntry } from './bankFiles/netcashStatement.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import type { BatchLine, BatchRecord } from './batch.ts';
import { ownEntry } from '../../core/ownEntry.ts';

/**
 * The NIF file of a netcash gateway's debit-order batch (docs/gateways/netcash.md, "Batches"): one T record a line,
 * under the gateway's debit-order service key. Each debtor is keyed in Netcash's masterfile by its bank account
 * (`PM` and the payment method's id); the line's payment id goes in Extra 1, which the statement reports back.
 */

/** The account type words we store (src/modules/mandates/bankAccounts.ts) as Netcash's: cheque and current are one. */
const NETCASH_ACCOUNT_TYPES: Readonly<Record<string, NetcashAccountType>> = {
  cheque: 'current',
  current: 'current',
  checking: 'current',
  savings: 'savings',
  transmission: 'transmission',
};

/** The masterfile key of a bank account: more than four characters, the same for every batch. */
export const netcashAccountReference = (methodId: number): string => `PM${String(methodId).padStart(6, '0')}`;

const text = (settings: Record<string, unknown>, key: string): string =>
  typeof settings[key] === 'string' ? (settings[key] as string) : '';

/** The wire names of the bank account's details the file carries, for a line's problem in the business's words. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  accountReference: 'the masterfile reference',
  accountName: 'AccountHolder',
  bankAccountName: 'AccountHolder',
  accountType: 'AccountType',
  branchCode: 'BranchCode',
  bankAccountNumber: 'AccountNumber',
  amountMinor: 'the amount',
  lineRef: 'the payment id',
};

/** A line of the batch as the file's debit: the bank account's details as stored (the builder fits the names). */
function netcashLineOf(line: BatchLine, method: PaymentMethod): NetcashDebitLine {
  const account = method.bankAccount!;
  return {
    accountReference: netcashAccountReference(line.paymentMethodId!),
    accountName: account.accountHolder,
    bankAccountName: account.accountHolder,
    accountType:
      ownEntry(NETCASH_ACCOUNT_TYPES, account.accountType.toLowerCase()) ?? ('' as NetcashAccountType),
    branchCode: account.branchCode ?? '',
    bankAccountNumber: account.secrets?.accountNumber ?? '',
    amountMinor: line.amountMinor,
    lineRef: String(line.paymentId),
  };
}

const cannotBeWritten = (methodId: number, problems: readonly string[]) =>
  `bank account ${methodId} cannot be written in Netcash's file: ${problems.join('; ')}`;

/**
 * Why the bank account's holder cannot go in Netcash's file even fitted to ASCII (a name written only in another
 * script, or longer than 50 characters once written in ASCII), or undefined. The bundling asks it before a line
 * is made, with the same words the build would use, so the invoice is told once (docs/gateways/netcash.md, "Batches").
 */
export function netcashHolderProblem(method: PaymentMethod): string | undefined {
  const { problem } = netcashTextProblem(method.bankAccount?.accountHolder ?? '');
  return problem && cannotBeWritten(method.id, [`AccountHolder ${problem}`]);
}

/**
 * Why one line cannot go in the file (its holder, branch code, account number...), or undefined: the build takes
 * such a line out of its batch with this reason and sends the others (docs/gateways.md, "One customer never holds up
 * a batch"). The method must be opened (its account number).
 */
export function netcashLineProblem(line: BatchLine, method: PaymentMethod): string | undefined {
  const problems = netcashLineProblems(netcashLineOf(line, method));
  if (problems.length === 0) return undefined;
  const words = new Set(problems.map(({ field, message }) => `${WIRE_NAMES[field] ?? field} ${message}`));
  return cannotBeWritten(method.id, [...words]);
}

/**
 * The file, or what keeps it from being made: the builder's refusals come back as `lines[i].field` problems for
 * the caller to name by payment (the build took out the lines netcashLineProblem refuses: what is left is the
 * header's and the settings').
 */
export function buildNetcashBatchFile(
  batch: BatchRecord,
  batchName: string,
  lines: readonly BatchLine[],
  methods: ReadonlyMap<number, PaymentMethod>,
  settings: Record<string, unknown>,
  /** The authenticated DebiCheck mandates of the lines' bank accounts, by payment method id. */
  debiChecks: ReadonlyMap<number, DebiCheckCollection> = new Map(),
): string | { problems: string[] } {
  if (batch.currencyCode !== 'ZAR') {
    return { problems: [`Netcash collects debit orders in ZAR, not ${batch.currencyCode}`] };
  }
  if (lines.length > 0 && lines.every((line) => debiChecks.has(line.paymentMethodId!))) {
    return buildDebiCheckBatchFile(batchName, batch, lines, settings, debiChecks);
  }
  return buildNetcashDebitOrderFile({
    serviceKey: text(settings, 'serviceKey'),
    softwareVendorKey: text(settings, 'softwareVendorKey') || NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
    instruction: 'TwoDay',
    batchName,
    actionDate: batch.actionDate,
    lines: lines.map((line) => netcashLineOf(line, methods.get(line.paymentMethodId!)!)),
  });
}

/** What a DebiCheck collection names of its mandate's authentication (docs/gateways/netcash.md, "DebiCheck"). */
export interface DebiCheckCollection {
  accountReference: string;
  contractReference: string;
  trackingDays: number;
}

/**
 * A batch of collections under authenticated DebiCheck mandates: Netcash's DebiCheck file, each line under the
 * masterfile key and contract reference its authentication was given (the build keeps DebiCheck lines out of a
 * batch of ordinary debit orders: batchMandates.service.ts).
 */
function buildDebiCheckBatchFile(
  batchName: string,
  batch: BatchRecord,
  lines: readonly BatchLine[],
  settings: Record<string, unknown>,
  debiChecks: ReadonlyMap<number, DebiCheckCollection>,
): string {
  return buildNetcashDebiCheckFile({
    serviceKey: text(settings, 'serviceKey'),
    softwareVendorKey: text(settings, 'softwareVendorKey') || NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
    batchName,
    actionDate: batch.actionDate,
    lines: lines.map((line) => {
      const debiCheck = debiChecks.get(line.paymentMethodId!)!;
      return {
        accountReference: debiCheck.accountReference,
        amountMinor: line.amountMinor,
        trackingDays: debiCheck.trackingDays,
        contractReference: debiCheck.contractReference,
        lineRef: String(line.paymentId),
      };
    }),
  });
}

/** What a Netcash statement says of one line of the batch. */
export type NetcashLineReport =
  | { lineRef: string; outcome: 'paid' | 'unpaid'; code: string | null }
  /** An entry about the line that does not match it (amount or sign): it changes nothing, and the answer names it. */
  | { lineRef: string; outcome: 'mismatched'; entryLine: number; reason: string };

/** The direction each entry about a debit goes: a collection into the Netcash account, an unpaid out of it. */
const SIGN_OF: Readonly<Record<string, '+' | '-'>> = {
  ...Object.fromEntries(NETCASH_DEBIT_TYPES.map((type) => [type, '+'])),
  [NETCASH_UNPAID_TYPE]: '-',
};

const rand = (cents: number) => `R${minorToDecimalText(cents, 'ZAR')}`;

/** Why an entry about a line does not match it, or undefined when its amount and sign are the debit's. */
function mismatchOf(entry: NetcashStatementEntry, amountMinor: number): string | undefined {
  const sign = SIGN_OF[entry.type]!;
  if (entry.amountMinor === amountMinor && entry.sign === sign) return undefined;
  const what = entry.type === NETCASH_UNPAID_TYPE ? 'an unpaid' : 'a collection';
  return (
    `${what} (${entry.type}) of ${entry.sign}${rand(entry.amountMinor)} does not match the debit of ` +
    `${rand(amountMinor)}: it must be ${sign}${rand(amountMinor)}`
  );
}

/**
 * The entries of a Netcash statement about this batch's lines (Extra 1 is the line's payment id; `lines` gives each
 * line's amount in cents): a debit order collected (TDD, SDD) is paid, an unpaid (DRU) fails the line with its code
 * and outweighs a collection of the same line in the same statement. Each must be the line's amount, a collection
 * `+` and an unpaid `-` (docs/gateways/netcash.md, "Statements"): one that is not is reported `mismatched` and
 * changes nothing. Every other entry (fees, balances, other batches' lines) is not about the batch.
 */
export function netcashStatementReports(
  document: string,
  lines: ReadonlyMap<string, number>,
): NetcashLineReport[] {
  const entries = parseNetcashStatement(document).filter(
    (entry) => lines.has(entry.extra1) && Object.hasOwn(SIGN_OF, entry.type),
  );
  const checked = entries.map((entry) => ({ entry, mismatch: mismatchOf(entry, lines.get(entry.extra1)!) }));
  const unpaid = new Set(
    checked
      .filter(({ entry, mismatch }) => entry.type === NETCASH_UNPAID_TYPE && !mismatch)
      .map(({ entry }) => entry.extra1),
  );
  return checked.flatMap(({ entry, mismatch }): NetcashLineReport[] => {
    if (mismatch)
      return [{ lineRef: entry.extra1, outcome: 'mismatched', entryLine: entry.line, reason: mismatch }];
    if (entry.type === NETCASH_UNPAID_TYPE) {
      return [{ lineRef: entry.extra1, outcome: 'unpaid', code: entry.unpaidCode }];
    }
    return unpaid.has(entry.extra1) ? [] : [{ lineRef: entry.extra1, outcome: 'paid', code: null }];
  });
}
