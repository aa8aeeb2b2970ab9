import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { DEFAULT_DUNNING_POLICY, nextTryAfterFailure } from './dunning.ts';
import { retryClassOf } from '../gateways/index.ts';
import type { DunningPolicy } from './dunning.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import type { StoredChargeResult as ChargeResult } from '../gateways/index.ts';
import { collectionMethodOf, lockInvoicesForCollection, setCollectionSchedules } from '../invoicing/index.ts';
import type { AllocatableInvoice } from '../invoicing/index.ts';
import { recordCollectedPayments, withLockedCustomers } from '../ledger/index.ts';
import type { CollectedPaymentInput, RecordedPayment } from '../ledger/index.ts';
import { invalidatePaymentMethod } from '../paymentMethods/index.ts';
import { autoTopUpDeclinedEvents } from '../credits/index.ts';
import * as repo from './collectionAttempt.repository.ts';
import type { CollectionAttempt, FinishedAttempt } from './collectionAttempt.ts';
import type { Claimed } from './collectionClaim.service.ts';
import { noticeCollectionFailed, noticePaymentCollected } from './customerNotices.ts';
import type { CollectionFailure } from './customerNotices.ts';
import { noticeRetriesRanOut } from './retriesRanOut.service.ts';

/**
 * The record of a collection batch (docs/gateways.md, "Batches of a collection run"): the gateway's answers to the
 * batch's charges written in one transaction under their customers' locks (the attempts finished, the payments and
 * their allocations, NumTries and NextTryDate), with the events of all of them emitted together.
 */

export /** A claimed attempt the gateway answered. */
interface Answered {
  claimed: Claimed;
  result: ChargeResult;
}

/**
 * The answers recorded in one transaction; when it fails, each on its own (one that cannot be recorded stays
 * `started`, and a later run asks the gateway again).
 */
export async function recordBatch(
  ctx: ServiceContext,
  answered: readonly Answered[],
): Promise<{ answered: Answered; recorded: Recorded }[]> {
  if (answered.length === 0) return [];
  try {
    const recorded = await recordOutcomes(ctx, answered);
    return answered.map((one, i) => ({ answered: one, recorded: recorded[i]! }));
  } catch (error) {
    if (answered.length > 1) {
      const each: { answered: Answered; recorded: Recorded }[] = [];
      for (const one of answered) each.push(...(await recordBatch(ctx, [one])));
      return each;
    }
    ctx.log.error(
      { err: error, invoiceId: answered[0]!.claimed.invoiceId },
      'recording the answer to a charge failed',
    );
    return [];
  }
}

/** The run of failures the invoice is in: when its first failure (a decline or an error) was, and how many technical errors end it. */
function failureRun(attempts: readonly CollectionAttempt[], at: string) {
  const failures = attempts.filter((a) => a.state === 'declined' || a.state === 'error');
  let technicalInRow = 0;
  for (let i = attempts.length - 1; i >= 0 && attempts[i]!.state === 'error'; i -= 1) technicalInRow += 1;
  return { firstFailureAt: failures[0]?.startedAt ?? at, technicalInRow };
}

/** The account's schedule (PUT /v1/account), its unset parts the defaults. */
function policyOf(ctx: ServiceContext): DunningPolicy {
  const { retryDays, maxAttempts } = ctx.account.dunning;
  return {
    ...DEFAULT_DUNNING_POLICY,
    retryDays: retryDays ?? DEFAULT_DUNNING_POLICY.retryDays,
    maxAttempts: maxAttempts ?? DEFAULT_DUNNING_POLICY.maxAttempts,
  };
}

/**
 * Whether the answer was recorded (false when another process recorded this attempt first), whether it ended the
 * invoice's retries, and the events of recording it.
 */
export interface Recorded {
  recorded: boolean;
  exhausted: boolean;
  events: EventToEmit[];
  /** The payment a collected charge or a decline made, for its attempt to point at. */
  payment?: repo.AttemptPayment;
  /** A failure's new NumTries and NextTryDate, written with the batch's others. */
  schedule?: { invoiceId: number; addTry: boolean; nextTryDate: string | null };
}

const NOT_RECORDED: Recorded = { recorded: false, exhausted: false, events: [] };

type Collected = Extract<ChargeResult, { outcome: 'succeeded' | 'pending' }>;
type Failed = Extract<ChargeResult, { outcome: 'declined' | 'error' }>;
type Declined = Extract<ChargeResult, { outcome: 'declined' }>;

const isCollected = (result: ChargeResult): result is Collected =>
  result.outcome === 'succeeded' || result.outcome === 'pending';

/**
 * Records what the gateway answered to each attempt, under their customers' locks: the money collected, or the
 * failure; their events emitted together (each invoice and payment rendered once, in one read of each kind).
 */
function recordOutcomes(ctx: ServiceContext, answered: readonly Answered[]): Promise<Recorded[]> {
  const customerIds = answered.map(({ claimed }) => claimed.customerId);
  return withLockedCustomers(ctx, customerIds, async (tctx) => {
    const at = nowInstant(tctx);
    // A failure tells the invoice's change with `previous`: the invoices as they are before any change.
    const failedIds = answered.flatMap(({ claimed, result }) =>
      isCollected(result) ? [] : [claimed.invoiceId],
    );
    const before = await snapshotResources(tctx, 'invoice', failedIds);
    const finished = await finishAttempts(tctx, answered, at);
    const collectedIds = answered.flatMap(({ claimed, result }) =>
      finished.has(claimed.attemptId) && isCollected(result) ? [claimed.invoiceId] : [],
    );
    // What the invoices owe now: money that arrived by other means since the claim stays unallocated.
    const owing = new Map(
      (await lockInvoicesForCollection(tctx, collectedIds)).map((target) => [target.id, target]),
    );
    const payments = await recordPayments(tctx, answered, finished, owing);
    // Each failure's next try counts the invoice's attempts: all the failed invoices' in one read.
    const attemptsOf = await repo.listAttemptsOfInvoices(
      tctx.db,
      tctx.account.id,
      answered.flatMap(({ claimed, result }) =>
        finished.has(claimed.attemptId) && !isCollected(result) ? [claimed.invoiceId] : [],
      ),
    );
    const recorded: Recorded[] = [];
    for (const { claimed, result } of answered) {
      const payment = payments.get(claimed.attemptId);
      if (!finished.has(claimed.attemptId)) recorded.push(NOT_RECORDED);
      else if (isCollected(result)) recorded.push(recordCollected(claimed, result, payment!));
      else {
        const snapshot = before.get(claimed.invoiceId) ?? {
          ref: invoiceRef(claimed.invoiceId),
          object: undefined,
        };
        const attempts = attemptsOf.get(claimed.invoiceId) ?? [];
        recorded.push(await recordFailed(tctx, claimed, result, { before: snapshot, at, payment, attempts }));
      }
    }
    // Each collected invoice's try counted, and no next one (docs/design/collections.md, "NumTries and NextTryDate").
    await setCollectionSchedules(tctx, collectedIds, { addTry: true, nextTryDate: null });
    await setFailureSchedules(tctx, recorded);
    await repo.setAttemptPayments(
      tctx.db,
      tctx.account.id,
      recorded.flatMap((one) => (one.payment ? [one.payment] : [])),
    );
    await emitEvents(
      tctx,
      recorded.flatMap((one) => one.events),
    );
    // A receipt for each charge that took the money now; a pending one's comes when it settles (chargeEvents).
    for (const [i, { result }] of answered.entries()) {
      const paymentId = recorded[i]!.payment?.paymentId;
      if (result.outcome === 'succeeded' && recorded[i]!.recorded && paymentId !== undefined) {
        await noticePaymentCollected(tctx, paymentId);
      }
    }
    return recorded;
  });
}

const invoiceRef = (id: number) => ({ type: 'invoice', id });

/**
 * Marks the attempts finished with the gateway's answers, those with the same answer in one statement; the ids of
 * those it finished (another process may have finished some first: then nothing is to be recorded for them).
 */
async function finishAttempts(
  ctx: ServiceContext,
  answered: readonly Answered[],
  at: string,
): Promise<Set<number>> {
  const sameAnswer = new Map<string, { changes: FinishedAttempt; attemptIds: number[] }>();
  for (const { claimed, result } of answered) {
    const failed = result.outcome === 'declined' || result.outcome === 'error';
    const changes = {
      state: result.outcome,
      reason: failed ? result.reason : null,
      rawCode: failed ? result.rawCode : null,
      retryClass: failed ? retryClassOf(result.reason) : null,
      finishedAt: at,
    };
    const key = JSON.stringify(changes);
    const group = sameAnswer.get(key) ?? { changes, attemptIds: [] };
    group.attemptIds.push(claimed.attemptId);
    sameAnswer.set(key, group);
  }
  const finished = new Set<number>();
  for (const { changes, attemptIds } of sameAnswer.values()) {
    for (const id of await repo.finishAttempts(ctx.db, ctx.account.id, attemptIds, changes)) finished.add(id);
  }
  return finished;
}

/**
 * The payments of the batch's finished attempts, by attempt, written together in the answers' order (the ledger's
 * batch entry, recordCollectedPayments): a collected charge's allocated to what its invoice owes now (`owing`,
 * locked), a decline's failed; a technical error makes none.
 */
async function recordPayments(
  ctx: ServiceContext,
  answered: readonly Answered[],
  finished: ReadonlySet<number>,
  owing: ReadonlyMap<number, AllocatableInvoice>,
): Promise<Map<number, RecordedPayment>> {
  const paying: { attemptId: number; payment: CollectedPaymentInput }[] = [];
  for (const { claimed, result } of answered) {
    if (!finished.has(claimed.attemptId)) continue;
    if (isCollected(result)) {
      const payment = collectedPayment(ctx, claimed, result, owing.get(claimed.invoiceId));
      paying.push({ attemptId: claimed.attemptId, payment });
    } else if (result.outcome === 'declined') {
      paying.push({ attemptId: claimed.attemptId, payment: declinedPayment(ctx, claimed, result) });
    }
  }
  const recorded = await recordCollectedPayments(
    ctx,
    paying.map(({ payment }) => payment),
    owing,
  );
  return new Map(paying.map(({ attemptId }, i) => [attemptId, recorded[i]!]));
}

/** A charge that collected the money (or will: pending): its payment, for the attempt to point at. */
function recordCollected(claimed: Claimed, result: Collected, payment: RecordedPayment): Recorded {
  return {
    recorded: true,
    exhausted: false,
    events: payment.events,
    payment: { attemptId: claimed.attemptId, paymentId: payment.paymentId, chargeId: result.chargeId },
  };
}

/** What recording a failure needs besides the answer: read or made for the whole batch. */
interface FailureContext {
  /** The invoice as it was before the batch's changes, for its event's `previous`. */
  before: Snapshot;
  at: string;
  /** A decline's failed payment (a technical error makes none). */
  payment: RecordedPayment | undefined;
  /** The invoice's attempts, this one finished. */
  attempts: readonly CollectionAttempt[];
}

/**
 * The failures' new NumTries and NextTryDate (Recorded.schedule), those with the same change in one statement
 * (docs/design/collections.md, "NumTries and NextTryDate").
 */
async function setFailureSchedules(ctx: ServiceContext, recorded: readonly Recorded[]): Promise<void> {
  const sameChange = new Map<string, { addTry: boolean; nextTryDate: string | null; invoiceIds: number[] }>();
  for (const { schedule } of recorded) {
    if (!schedule) continue;
    const key = `${schedule.addTry} ${schedule.nextTryDate}`;
    const group = sameChange.get(key) ?? { ...schedule, invoiceIds: [] };
    group.invoiceIds.push(schedule.invoiceId);
    sameChange.set(key, group);
  }
  for (const { addTry, nextTryDate, invoiceIds } of sameChange.values()) {
    await setCollectionSchedules(ctx, invoiceIds, { addTry, nextTryDate });
  }
}

/**
 * A decline or a technical error, its attempt finished: the invoice's next try, a decline's failed payment, the
 * invoice's change told with `previous` (`before`) and, when this failure ended its retries, the customer told. A
 * technical error counts no try.
 */
async function recordFailed(
  ctx: ServiceContext,
  claimed: Claimed,
  result: Failed,
  { before, at, payment, attempts }: FailureContext,
): Promise<Recorded> {
  const ref = before.ref;
  const next = await nextTryAfter(ctx, claimed, result, at, attempts);
  const declined = result.outcome === 'declined';
  // Told before a hard decline ends the card, so that the notice still names it.
  await noticeFailure(ctx, claimed, result, next);
  const events = declined && payment ? await declineEvents(ctx, claimed, result, payment) : [];
  // A decline is announced as such; a technical error only moved NextTryDate.
  events.push({ type: declined ? 'invoice.payment_failed' : 'invoice.updated', ref, before });
  if (declined) events.push(...(await autoTopUpDeclinedEvents(ctx, claimed.invoiceId)));
  if (next.exhausted) events.push({ type: 'invoice.collection_exhausted', ref });
  return {
    recorded: true,
    exhausted: next.exhausted,
    events,
    schedule: { invoiceId: claimed.invoiceId, addTry: declined, nextTryDate: next.at },
    ...(payment
      ? { payment: { attemptId: claimed.attemptId, paymentId: payment.paymentId, chargeId: null } }
      : {}),
  };
}

/**
 * The customer told of the failure (docs/gateways.md, "When a charge fails, and when retries run out"): a decline at
 * once, with the next try or why there is none; the failure that ends the retries (a decline or a technical error)
 * by its one notice, the staff told too. A technical error with tries left tells nobody: the customer can do nothing.
 */
async function noticeFailure(
  ctx: ServiceContext,
  claimed: Claimed,
  result: Failed,
  next: { at: string | null; exhausted: boolean },
): Promise<void> {
  const failure: CollectionFailure = {
    customerId: claimed.customerId,
    invoiceId: claimed.invoiceId,
    currencyCode: claimed.currencyCode,
    amountMinor: claimed.amountMinor,
    reason: result.reason,
    paymentMethodId: claimed.paymentMethodId,
    nextTryDate: next.at,
    from: 'card',
  };
  if (next.exhausted) await noticeRetriesRanOut(ctx, { ...failure, exhausted: true });
  else if (result.outcome === 'declined') await noticeCollectionFailed(ctx, failure);
}

/** A collected charge's payment, allocated to what its invoice owes now, settled or pending as the gateway said. */
function collectedPayment(
  ctx: ServiceContext,
  claimed: Claimed,
  result: Collected,
  owing: AllocatableInvoice | undefined,
): CollectedPaymentInput {
  return {
    ...attemptPayment(ctx, claimed),
    allocateMinor: owing && !owing.refusal ? Math.max(0, Math.min(owing.openMinor, claimed.amountMinor)) : 0,
    state: result.outcome === 'succeeded' ? 'settled' : 'pending',
    ref: result.chargeId,
  };
}

/** The payment an attempt records, collected or failed. */
function attemptPayment(ctx: ServiceContext, claimed: Claimed) {
  return {
    customerId: claimed.customerId,
    invoiceId: claimed.invoiceId,
    currencyCode: claimed.currencyCode,
    amountMinor: claimed.amountMinor,
    date: today(ctx),
    method: 'credit_card',
    paymentMethodId: claimed.paymentMethodId,
    memo: `Collected through gateway ${claimed.gateway.id}`,
  };
}

/**
 * When the invoice is tried next after this failure, on the account's schedule (modules/collections/dunning.ts), and whether its
 * retries ran out.
 */
async function nextTryAfter(
  ctx: ServiceContext,
  claimed: Claimed,
  result: Failed,
  at: string,
  attempts: readonly CollectionAttempt[],
): Promise<{ at: string | null; exhausted: boolean }> {
  const run = failureRun(attempts, at);
  const next = nextTryAfterFailure(
    {
      retryClass: retryClassOf(result.reason),
      tries: attempts.filter((a) => a.state !== 'error' && a.state !== 'started').length,
      firstFailureAt: run.firstFailureAt,
      technicalErrorsInRow: run.technicalInRow,
      at,
      timeZone: ctx.account.timeZone,
    },
    policyOf(ctx),
  );
  // A new card came while this attempt was in flight (newPrimaryRetry): it is tried now, whatever this one said.
  const replaced = (await collectionMethodOf(ctx, claimed.invoiceId)) !== claimed.paymentMethodId;
  return replaced ? { at, exhausted: false } : { at: next.nextTryAt, exhausted: next.exhausted };
}

/** A decline is a payment that failed, with its reason (a technical error makes no payment at all). */
function declinedPayment(ctx: ServiceContext, claimed: Claimed, result: Declined): CollectedPaymentInput {
  return {
    ...attemptPayment(ctx, claimed),
    allocateMinor: 0,
    state: 'failed',
    ref: null,
    failureReason: result.reason,
    failureCode: result.rawCode,
  };
}

/** The events of recording a decline: its payment's, and its card's when the decline ends the card. */
async function declineEvents(
  ctx: ServiceContext,
  claimed: Claimed,
  result: Declined,
  payment: RecordedPayment,
): Promise<EventToEmit[]> {
  // A card the issuer will never honour again (lost, stolen, expired, closed) is no longer valid.
  if (retryClassOf(result.reason) !== 'hard') return [...payment.events];
  return [...payment.events, ...(await invalidatePaymentMethod(ctx, claimed.paymentMethodId))];
}
