import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import {
  GatewayTimeoutError,
  amendDebiCheckAtGateway,
  cancelDebiCheckAtGateway,
  authenticateDebiCheckAtGateway,
  debiCheckStatusAtGateway,
  getGateway,
  registersDebiCheck,
  usableGatewayByToken,
} from '../gateways/index.ts';
import type { DebiCheckAnswer, DebiCheckToAuthenticate, Gateway } from '../gateways/index.ts';
import { DEBICHECK_PENDING_HOURS } from './debiCheck.ts';
import type { DebiCheckAuthentication, DebiCheckStatus } from './debiCheck.ts';
import * as repo from './emandate.repository.ts';
import { emandateRef, getEmandate } from './emandate.service.ts';
import { cancelEmandate } from './emandateCancel.service.ts';
import type { Emandate, EmandateRecord } from './emandate.ts';
import { tokenDigest } from './emandateToken.ts';
import { firstCollectionDate } from './mandateChecks.ts';
import { maxAmountProblem } from './mandates.ts';

/**
 * A DebiCheck mandate's authentication by the debtor's bank (docs/design/mandates.md, "DebiCheck"): registered
 * through a gateway once the mandate is signed, waiting (`pending`) until the debtor approves or declines it with
 * their bank, asked about by the run while it waits, amended and cancelled through the gateway. Every call to the
 * gateway is made outside a transaction, each change of the mandate in one, with `emandate.updated`.
 */

/** Where an authentication may be asked again: never asked, or asked and refused or lapsed. */
const ASKABLE: readonly (DebiCheckStatus | null)[] = [null, 'declined', 'expired'];

/** The key of a DebiCheck mandate's debtor in the gateway's masterfile: its collections name the same one. */
export const debiCheckAccountReference = (mandateId: number): string =>
  `DC${String(mandateId).padStart(6, '0')}`;

const refused = (detail: string) =>
  new ConflictError('debicheck_refused', `The gateway refused the DebiCheck request: ${detail}`);

/** The mandate as stored (its sealed fields with it), or NotFound. */
async function recordOf(ctx: ServiceContext, token: string): Promise<EmandateRecord> {
  const record = await repo.findEmandateByTokenDigest(ctx.db, ctx.account.id, tokenDigest(token));
  // The token is a capability: the refusal's log line must not carry it.
  if (!record) throw new NotFoundError('eMandate', '[token]');
  return record;
}

/** The pending wait that starts now: until the bank's delayed answer is due. */
function pendingUntil(ctx: ServiceContext): string {
  return new Date(ctx.clock.now().getTime() + DEBICHECK_PENDING_HOURS * 3_600_000).toISOString();
}

/**
 * POST /v1/emandate/debicheck: asks the debtor's bank, through the netcash gateway named, to authenticate a signed
 * DebiCheck mandate (TT1, real time). The mandate is pending from before the call, so that a second request finds
 * it asked; the answer, in the call or later (the run asks: refreshDebiCheckAuthentications), moves it on.
 */
export async function registerDebiCheck(
  ctx: ServiceContext,
  token: string,
  gatewayToken: string,
): Promise<Emandate> {
  const record = await recordOf(ctx, token);
  const gateway = await debiCheckGateway(ctx, gatewayToken);
  assertRegistrable(record);
  const requestedAt = nowInstant(ctx);
  const claimed = await changeAuthentication(ctx, record, record.debiCheck!.status, {
    status: 'pending',
    gatewayId: gateway.id,
    contractReference: null,
    requestedAt,
    expiresAt: pendingUntil(ctx),
    answeredAt: null,
    reason: null,
  });
  if (!claimed)
    throw new ConflictError('debicheck_registered', 'The DebiCheck mandate was registered meanwhile');
  let answer: DebiCheckAnswer;
  try {
    answer = await authenticateDebiCheckAtGateway(ctx, gateway, await toAuthenticate(ctx, record));
  } catch (error) {
    if (!(error instanceof GatewayTimeoutError)) throw error;
    // Netcash may have sent it to the bank: it stays pending until its wait ends (docs/gateways/netcash.md).
    await changeAuthentication(ctx, record, 'pending', { reason: 'the gateway did not answer in time' });
    return getEmandate(ctx, token);
  }
  if (answer.outcome === 'refused') {
    // Nothing reached the bank: the mandate may be registered again once the cause is fixed.
    await changeAuthentication(ctx, record, 'pending', { status: null, reason: answer.detail });
    throw refused(answer.detail);
  }
  await applyAnswer(ctx, record, answer);
  return getEmandate(ctx, token);
}

async function debiCheckGateway(ctx: ServiceContext, gatewayToken: string): Promise<Gateway> {
  const problems: FieldProblem[] = [];
  const gateway = await usableGatewayByToken(ctx, gatewayToken, 'GatewayToken', problems);
  if (gateway && !(await registersDebiCheck(ctx, gateway))) {
    problems.push({
      field: 'GatewayToken',
      message: `gateway ${gateway.id} (${gateway.type}) does not register DebiCheck mandates: a netcash gateway does`,
    });
  }
  if (problems.length > 0 || !gateway) throw new ValidationError(problems);
  return gateway;
}

function assertRegistrable(record: EmandateRecord): void {
  if (record.debiCheck === null) {
    throw new ConflictError('emandate_not_debicheck', 'The eMandate is not a DebiCheck mandate');
  }
  if (record.status !== 'signed') {
    throw new ConflictError(
      'emandate_not_signed',
      `The eMandate is ${record.status}: the debtor signs it before their bank authenticates it`,
    );
  }
  if (record.debit.currencyCode !== 'ZAR') {
    throw new ConflictError('emandate_not_debicheck', 'DebiCheck mandates collect in ZAR');
  }
  if (!ASKABLE.includes(record.debiCheck.status)) {
    throw new ConflictError(
      'debicheck_registered',
      `The DebiCheck mandate's authentication is ${record.debiCheck.status} already`,
    );
  }
}

/** What the gateway sends the bank: the account and identity numbers opened for the call only. */
async function toAuthenticate(ctx: ServiceContext, record: EmandateRecord): Promise<DebiCheckToAuthenticate> {
  const { signee, bankAccount, debit } = record;
  const debiCheck = record.debiCheck!;
  return {
    accountReference: debiCheckAccountReference(record.id),
    idKind: debiCheck.idKind,
    idNumber: ctx.secrets.open(record.debiCheckIdSealed!),
    accountName: `${signee.name} ${signee.lastName}`,
    accountHolder: bankAccount.accountHolder,
    branchCode: bankAccount.branchCode,
    accountNumber: ctx.secrets.open(record.accountNumberSealed),
    accountType: bankAccount.accountType,
    mobileNumber: (signee.tel ?? '').replace(/[^\d+]/g, ''),
    email: signee.email,
    amountMinor: debit.amountMinor,
    firstAmountMinor: debiCheck.firstAmountMinor,
    firstCollectionDate: firstCollectionDate(debit),
    collectionDay: debit.actionDay,
  };
}

/**
 * Records the gateway's answer: the state it names, its contract reference, its words; a pending one keeps its
 * wait. From pending only: an answer that comes after the mandate moved on (cancelled meanwhile) changes nothing.
 */
async function applyAnswer(
  ctx: ServiceContext,
  record: EmandateRecord,
  answer: Exclude<DebiCheckAnswer, { outcome: 'refused' }>,
): Promise<boolean> {
  const waiting = answer.outcome === 'pending';
  return changeAuthentication(ctx, record, 'pending', {
    status: answer.outcome,
    contractReference: answer.contractReference ?? record.debiCheck!.contractReference,
    answeredAt: waiting ? null : nowInstant(ctx),
    reason: answer.detail,
  });
}

/** One change of the authentication, in a transaction with `emandate.updated`; false when it moved meanwhile. */
async function changeAuthentication(
  ctx: ServiceContext,
  record: EmandateRecord,
  from: DebiCheckStatus | null,
  changes: Partial<DebiCheckAuthentication>,
  amounts?: { amountMinor: number; maxAmountMinor: number },
): Promise<boolean> {
  return withTransaction(ctx, async (tctx) => {
    const ref = emandateRef(record.id);
    const before = await snapshotResource(tctx, ref);
    const changed = await repo.updateDebiCheckInStatus(tctx.db, tctx.account.id, record.id, from, {
      status: 'signed',
      debiCheck: changes,
      ...(amounts ? { amounts } : {}),
      updatedAt: nowInstant(tctx),
    });
    if (changed) await emitEvent(tctx, 'emandate.updated', ref, { before });
    return changed;
  });
}

const REFRESH_BATCH = 100;

/**
 * The run asks the gateway about every authentication still pending (docs/design/mandates.md, "DebiCheck"): the
 * bank's delayed answer moves it on; one whose wait has ended and that the gateway still calls pending (or that never
 * got a contract reference) is expired. One mandate's failure is logged and left for the next run. How many moved.
 */
export async function refreshDebiCheckAuthentications(ctx: ServiceContext): Promise<number> {
  const pending = await repo.listEmandatesInDebiCheckStatus(ctx.db, ctx.account.id, 'pending', REFRESH_BATCH);
  let moved = 0;
  for (const record of pending) {
    try {
      if (await refreshOne(ctx, record)) moved += 1;
    } catch (error) {
      ctx.log.error({ err: error, emandateId: record.id }, 'DebiCheck status not read');
    }
  }
  return moved;
}

async function refreshOne(ctx: ServiceContext, record: EmandateRecord): Promise<boolean> {
  const debiCheck = record.debiCheck!;
  const lapsed = debiCheck.expiresAt !== null && debiCheck.expiresAt <= nowInstant(ctx);
  const expire = (reason: string) =>
    changeAuthentication(ctx, record, 'pending', { status: 'expired', answeredAt: nowInstant(ctx), reason });
  if (debiCheck.contractReference === null || debiCheck.gatewayId === null) {
    return lapsed ? expire(debiCheck.reason ?? 'the bank did not answer in time') : false;
  }
  const gateway = await getGateway(ctx, debiCheck.gatewayId);
  const answer = await debiCheckStatusAtGateway(ctx, gateway, debiCheck.contractReference);
  if (answer.outcome === 'refused') {
    ctx.log.warn({ emandateId: record.id, code: answer.rawCode }, 'DebiCheck status refused by the gateway');
    return lapsed ? expire(answer.detail) : false;
  }
  if (answer.outcome === 'pending')
    return lapsed ? expire('the debtor did not answer their bank in time') : false;
  return applyAnswer(ctx, record, answer);
}

/** The new amounts of an amendment, as the wire gave them. */
export interface DebiCheckAmendInput {
  debitAmt: number | string;
  debitMaxAmt?: number | string | null;
}

/**
 * PUT /v1/emandate/debicheck/amend: changes an authenticated DebiCheck mandate's instalment and maximum through
 * the gateway (the maximum within 1.5 times the instalment). The gateway taking it sends it to the bank: the
 * mandate waits again (pending) until the bank confirms the amended terms, and collects nothing meanwhile.
 */
export async function amendDebiCheck(
  ctx: ServiceContext,
  token: string,
  input: DebiCheckAmendInput,
): Promise<Emandate> {
  const record = await recordOf(ctx, token);
  const debiCheck = record.debiCheck;
  if (debiCheck?.status !== 'authenticated' || debiCheck.contractReference === null) {
    throw new ConflictError(
      'debicheck_not_authenticated',
      'Only an authenticated DebiCheck mandate can be amended: its bank has not authenticated it',
    );
  }
  const amounts = checkedAmounts(record.debit.currencyCode, input);
  const gateway = await getGateway(ctx, debiCheck.gatewayId!);
  const answer = await amendDebiCheckAtGateway(ctx, gateway, debiCheck.contractReference, amounts);
  if (answer.outcome === 'refused') throw refused(answer.detail);
  const changed = await changeAuthentication(
    ctx,
    record,
    'authenticated',
    { status: 'pending', expiresAt: pendingUntil(ctx), answeredAt: null, reason: 'amended' },
    amounts,
  );
  if (!changed) throw new ConflictError('debicheck_not_authenticated', 'The mandate changed meanwhile');
  return getEmandate(ctx, token);
}

function checkedAmounts(currencyCode: string, input: DebiCheckAmendInput) {
  const problems: FieldProblem[] = [];
  const read = (value: number | string, field: string) => {
    const minor = wireAmountToMinor(value, currencyCode);
    if ('minor' in minor) return minor.minor;
    problems.push({ field, message: minor.message });
    return undefined;
  };
  const amountMinor = read(input.debitAmt, 'debit_Amt');
  const maxMinor =
    input.debitMaxAmt === undefined || input.debitMaxAmt === null
      ? amountMinor
      : read(input.debitMaxAmt, 'debit_MaxAmt');
  if (amountMinor !== undefined && maxMinor !== undefined) {
    const problem = maxAmountProblem(amountMinor, maxMinor);
    if (problem) problems.push({ field: 'debit_MaxAmt', message: problem });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return { amountMinor: amountMinor!, maxAmountMinor: maxMinor! };
}

/** The bank's reasons for cancelling a DebiCheck authentication (api.netcash.co.za, "DebiCheck cancel authentication"). */
export const DEBICHECK_CANCEL_REASONS = [
  'AGMT',
  'CURR',
  'CUST',
  'CUTA',
  'DUPL',
  'FRAD',
  'UPAY',
  'FRTR',
] as const;

/**
 * PUT /v1/emandate/cancel: a DebiCheck mandate the bank authenticated is cancelled at the gateway first (with the
 * bank's reason, CUST when none is given: requested by the customer), then as any mandate (emandateCancel.service.ts).
 * A refusal by the gateway cancels nothing. Netcash cancels only an accepted authentication: one still pending is
 * cancelled here alone, and nothing is collected under it whatever the debtor answers their bank.
 */
export async function cancelMandate(
  ctx: ServiceContext,
  token: string,
  reasonCode: string | null = null,
): Promise<Emandate> {
  const record = await recordOf(ctx, token);
  const reason = (reasonCode ?? 'CUST').trim().toUpperCase();
  if (!(DEBICHECK_CANCEL_REASONS as readonly string[]).includes(reason)) {
    throw new ValidationError([
      { field: 'DebiCheckReasonCode', message: `must be one of ${DEBICHECK_CANCEL_REASONS.join(', ')}` },
    ]);
  }
  const debiCheck = record.debiCheck;
  const atBank =
    record.status === 'signed' &&
    debiCheck !== null &&
    debiCheck.status === 'authenticated' &&
    debiCheck.contractReference !== null &&
    debiCheck.gatewayId !== null;
  if (atBank) {
    const gateway = await getGateway(ctx, debiCheck.gatewayId!);
    const answer = await cancelDebiCheckAtGateway(ctx, gateway, debiCheck.contractReference!, reason);
    if (answer.outcome === 'refused') throw refused(answer.detail);
  }
  return cancelEmandate(ctx, token, debiCheck !== null && debiCheck.status !== null);
}
