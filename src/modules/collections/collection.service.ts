import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { DEFAULT_DUNNING_POLICY, nextTryAfterFailure, retryClassOf } from '../../core/dunning.ts';
import type { DunningPolicy } from '../../core/dunning.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import {
  GatewayTimeoutError,
  canCharge,
  chargeStoredMethod,
  gatewaysByIds,
  isGatewayUsable,
} from '../gateways/index.ts';
import type { ChargeResult, Gateway } from '../gateways/index.ts';
import {
  collectionMethodOf,
  findInvoicesDue,
  getInvoice,
  listInvoicesDue,
  lockInvoicesForCollection,
  setCollectionProblem,
  setCollectionSchedule,
  setCollectionSchedules,
} from '../invoicing/index.ts';
import type { AllocatableInvoice, CollectableInvoice } from '../invoicing/index.ts';
import { recordCollectedPayment, withLockedCustomers } from '../ledger/index.ts';
import { setCustomerSuspended } from '../customers/index.ts';
import { cancelSubscription, liveSubscriptionIdsOfCustomer } from '../subscriptions/index.ts';
import { invalidatePaymentMethod, unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import * as repo from './collectionAttempt.repository.ts';
import { retriesRanOutMail } from './collectionMails.ts';
import type { CollectedFrom } from './collectionMails.ts';
import { queueCustomerMails } from './customerMails.ts';
import { reportBlockedCollection } from './blockedCollection.service.ts';
import { finishUnansweredRefunds } from './refund.service.ts';
import { finishUnansweredPortalPayments } from './payNow.service.ts';
import { applyChargeEvents } from './chargeEvents.service.ts';
import type { AttemptRow } from './collectionAttempt.repository.ts';

/**
 * Automatic collection of card invoices (docs/gateways.md, "Automatic collection of card invoices";
 * docs/design/collections.md, "Retries"). Each attempt is claimed, then charged, then recorded:
 * 1. claimed in a transaction under the customer's lock: an attempt row (unique per invoice and attempt number,
 *    so two processes cannot both start attempt n) with the amount the invoice owes and an idempotency key;
 * 2. charged outside any transaction, with that key;
 * 3. recorded in a second transaction: the payment (settled, pending or failed), its allocation, NumTries and
 *    NextTryDate, and the events. An attempt the record never reached (a crash, a timeout) stays `started`, and
 *    the next run asks the gateway again with the same key: the provider answers with the first charge, so the
 *    invoice is never charged twice.
 * A run takes the invoices a batch at a time (docs/gateways.md, "Batches of a collection run"): the batch's claims
 * in one transaction, its charges one after the other, their answers recorded in one transaction; a batch
 * transaction that fails is made again one invoice at a time, so one invoice never holds back the others.
 */

export interface CollectionSummary {
  /** Attempts that reached a gateway and were recorded. */
  attempts: number;
  succeeded: number;
  declined: number;
  /** Technical errors: no decision, retried soon, not counted as tries. */
  errors: number;
  /** Charges with no answer yet, finished by a later run. */
  unanswered: number;
  /** Invoices whose retries ran out in this run. */
  exhausted: number;
}

export interface CollectionOptions {
  /** Wall-clock age after which a `started` attempt is finished by asking the gateway again (default 2 minutes). */
  staleAfterMs?: number;
}

/** Invoices (and unanswered attempts) read per page of a collection run. */
const INVOICES_PER_PAGE = 100;
/**
 * Invoices claimed together, then charged, then recorded together. NOTE: the last claim of a batch waits for the
 * charges before it; at a few seconds a charge, 25 stay well inside the two minutes after which another run would
 * ask the gateway again (harmless, with the same key, but wasted).
 */
const CHARGES_PER_BATCH = 25;
const DEFAULT_STALE_AFTER_MS = 120_000;

interface Claimed {
  attemptId: number;
  attemptNo: number;
  invoiceId: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  idempotencyKey: string;
  gateway: Gateway;
  paymentMethodId: number;
  token: string;
}

/** A claimed attempt the gateway answered. */
interface Answered {
  claimed: Claimed;
  result: ChargeResult;
}

export function emptyCollectionSummary(): CollectionSummary {
  return { attempts: 0, succeeded: 0, declined: 0, errors: 0, unanswered: 0, exhausted: 0 };
}

/**
 * On SQLite every statement and the test gateway are synchronous: without a pause between invoices, a run over
 * thousands would hold the event loop (and the API of the process it runs in) for its whole length.
 */
const yieldToOtherWork = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Collects every card invoice of the context's account due by its clock; charges and refunds left unanswered are
 * finished first, and the gateways' late events on their charges (disputes) applied.
 */
export async function collectDueInvoices(
  ctx: ServiceContext,
  options: CollectionOptions = {},
): Promise<CollectionSummary> {
  const summary = emptyCollectionSummary();
  // Wall time, as the attempts' leases: an answer in flight takes real time, however far a test clock has moved.
  const staleBefore = new Date(
    ctx.wallClock.now().getTime() - (options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS),
  ).toISOString();
  await finishUnansweredRefunds(ctx, staleBefore);
  await finishUnansweredPortalPayments(ctx, staleBefore);
  await applyChargeEvents(ctx);
  const stale = await repo.listStaleAttempts(ctx.db, ctx.account.id, staleBefore, INVOICES_PER_PAGE);
  for (let at = 0; at < stale.length; at += CHARGES_PER_BATCH) {
    await chargeAndRecord(
      ctx,
      await claimedFromAttempts(ctx, stale.slice(at, at + CHARGES_PER_BATCH)),
      summary,
    );
  }
  for (let afterId = 0; ;) {
    const due = await listInvoicesDue(
      ctx,
      'credit_card',
      nowInstant(ctx),
      today(ctx),
      INVOICES_PER_PAGE,
      afterId,
    );
    for (let at = 0; at < due.length; at += CHARGES_PER_BATCH) {
      await chargeAndRecord(ctx, await claimBatch(ctx, due.slice(at, at + CHARGES_PER_BATCH)), summary);
    }
    if (due.length < INVOICES_PER_PAGE) break;
    afterId = due.at(-1)!.id;
  }
  return summary;
}

/** The gateway and card token each invoice is charged through, for those whose gateway and card can be charged. */
async function chargeableMethods(
  ctx: ServiceContext,
  invoices: readonly CollectableInvoice[],
): Promise<Map<number, { gateway: Gateway; token: string }>> {
  const gateways = await gatewaysByIds(ctx, [
    ...new Set(invoices.flatMap((invoice) => (invoice.gatewayId === null ? [] : [invoice.gatewayId]))),
  ]);
  const methods = await unopenedPaymentMethodsByIds(ctx, [
    ...new Set(
      invoices.flatMap((invoice) => (invoice.paymentMethodId === null ? [] : [invoice.paymentMethodId])),
    ),
  ]);
  const usable = new Map<number, { gateway: Gateway; token: string }>();
  for (const invoice of invoices) {
    const gateway = invoice.gatewayId === null ? undefined : gateways.get(invoice.gatewayId);
    const method = invoice.paymentMethodId === null ? undefined : methods.get(invoice.paymentMethodId);
    if (!gateway || !isGatewayUsable(gateway) || !canCharge(gateway)) continue;
    if (
      !method ||
      method.customerId !== invoice.customerId ||
      method.type !== 'credit_card' ||
      !method.isValid
    )
      continue;
    usable.set(invoice.id, { gateway, token: method.token });
  }
  return usable;
}

/**
 * The batch's claims in one transaction; when it fails (another process started one of its attempts at the same
 * moment, or one invoice cannot be claimed), each invoice is claimed on its own.
 */
async function claimBatch(ctx: ServiceContext, listed: readonly CollectableInvoice[]): Promise<Claimed[]> {
  try {
    return await claimAttempts(ctx, listed);
  } catch (error) {
    if (listed.length > 1) {
      const claimed: Claimed[] = [];
      for (const invoice of listed) claimed.push(...(await claimBatch(ctx, [invoice])));
      return claimed;
    }
    // Another process started this attempt at the same moment: it is theirs.
    if (!isUniqueViolation(error)) {
      // One invoice must not hold back the others; the next run tries it again.
      ctx.log.error({ err: error, invoiceId: listed[0]?.id }, 'collecting an invoice failed');
    }
    return [];
  }
}

/**
 * Starts the next attempt at each invoice, unless it is paid, in flight, no longer due or has no usable method.
 * Everything is read again under the customers' locks: the list they came from may be stale.
 */
async function claimAttempts(ctx: ServiceContext, listed: readonly CollectableInvoice[]): Promise<Claimed[]> {
  let mailQueued = false;
  const customerIds = listed.map((invoice) => invoice.customerId);
  const claimed = await withLockedCustomers(ctx, customerIds, async (tctx) => {
    const invoices = await findInvoicesDue(
      tctx,
      'credit_card',
      listed.map((invoice) => invoice.id),
      nowInstant(tctx),
      today(tctx),
    );
    const ids = invoices.map((invoice) => invoice.id);
    const targets = new Map(
      (await lockInvoicesForCollection(tctx, ids)).map((target) => [target.id, target]),
    );
    const attempts = await repo.listAttemptsOfInvoices(tctx.db, tctx.account.id, ids);
    const usable = await chargeableMethods(tctx, invoices);
    const claims: Omit<Claimed, 'attemptId'>[] = [];
    const problemsSolved: number[] = [];
    for (const invoice of invoices) {
      const target = targets.get(invoice.id);
      if (!target || target.refusal || target.openMinor <= 0) continue;
      const tried = attempts.get(invoice.id) ?? [];
      if (tried.some((attempt) => attempt.state === 'started')) continue;
      if (invoice.blocked) {
        if (await reportBlockedCollection(tctx, invoice)) mailQueued = true;
        continue;
      }
      const { gatewayId, paymentMethodId } = invoice;
      if (gatewayId === null || paymentMethodId === null) continue;
      const method = usable.get(invoice.id);
      if (!method) {
        tctx.log.warn(
          { invoiceId: invoice.id },
          'invoice not collected: its gateway or payment method is not usable',
        );
        continue;
      }
      const attemptNo = tried.length + 1;
      claims.push({
        attemptNo,
        invoiceId: invoice.id,
        customerId: invoice.customerId,
        currencyCode: invoice.currencyCode,
        amountMinor: target.openMinor,
        idempotencyKey: `inv_${invoice.id}_try_${attemptNo}`,
        gateway: method.gateway,
        paymentMethodId,
        token: method.token,
      });
      if (invoice.reportedProblem !== null) problemsSolved.push(invoice.id);
    }
    const attemptIds = await repo.insertAttempts(
      tctx.db,
      claims.map((claim) => ({
        account_id: tctx.account.id,
        invoice_id: claim.invoiceId,
        customer_id: claim.customerId,
        attempt_no: claim.attemptNo,
        idempotency_key: claim.idempotencyKey,
        gateway_id: claim.gateway.id,
        payment_method_id: claim.paymentMethodId,
        token: claim.token,
        amount_minor: claim.amountMinor,
        currency_code: claim.currencyCode,
        state: 'started',
        started_at: nowInstant(tctx),
        leased_at: tctx.wallClock.now().toISOString(),
      })),
    );
    // In flight: no next try until this one is answered (docs/design/collections.md, "NumTries and NextTryDate").
    await setCollectionSchedules(
      tctx,
      claims.map((claim) => claim.invoiceId),
      { addTry: false, nextTryDate: null },
    );
    // The customer's settings can collect it again: the problem they were told of is solved.
    for (const invoiceId of problemsSolved) await setCollectionProblem(tctx, invoiceId, null);
    return claims.map((claim) => ({ ...claim, attemptId: attemptIds.get(claim.invoiceId)! }));
  });
  if (mailQueued) ctx.mailQueued();
  return claimed;
}

/**
 * Attempts left `started` (a crash, a timeout), to be finished by asking the gateway again with their keys and the
 * tokens they charged. NOTE: even a gateway disabled since is asked: the charge may have been made, and only the
 * provider knows.
 */
async function claimedFromAttempts(ctx: ServiceContext, attempts: readonly AttemptRow[]): Promise<Claimed[]> {
  const gateways = await gatewaysByIds(ctx, [...new Set(attempts.map((attempt) => attempt.gateway_id))]);
  return attempts.flatMap((attempt) => {
    const gateway = gateways.get(attempt.gateway_id);
    if (!gateway) {
      ctx.log.error({ attemptId: attempt.id }, 'finishing an unanswered charge failed: its gateway is gone');
      return [];
    }
    return [
      {
        attemptId: attempt.id,
        attemptNo: attempt.attempt_no,
        invoiceId: attempt.invoice_id,
        customerId: attempt.customer_id,
        currencyCode: attempt.currency_code,
        amountMinor: attempt.amount_minor,
        idempotencyKey: attempt.idempotency_key,
        gateway,
        paymentMethodId: attempt.payment_method_id,
        token: attempt.token,
      },
    ];
  });
}

/** Charges the claimed attempts one after the other, then records their answers together. */
async function chargeAndRecord(
  ctx: ServiceContext,
  claims: readonly Claimed[],
  summary: CollectionSummary,
): Promise<void> {
  const answered: Answered[] = [];
  for (const claimed of claims) {
    const result = await charge(ctx, claimed, summary);
    if (result) answered.push({ claimed, result });
    await yieldToOtherWork();
  }
  for (const { answered: one, recorded } of await recordBatch(ctx, answered)) {
    if (!recorded.recorded) continue;
    if (recorded.exhausted) {
      summary.exhausted += 1;
      ctx.mailQueued();
      await afterRetriesRanOutLogged(ctx, one.claimed.customerId);
    }
    const { outcome } = one.result;
    if (outcome === 'error') summary.errors += 1;
    else {
      summary.attempts += 1;
      if (outcome === 'declined') summary.declined += 1;
      else summary.succeeded += 1;
    }
  }
}

/** The gateway's answer to the claimed attempt; undefined when there is none yet (finished by a later run). */
async function charge(
  ctx: ServiceContext,
  claimed: Claimed,
  summary: CollectionSummary,
): Promise<ChargeResult | undefined> {
  try {
    return await chargeStoredMethod(ctx, claimed.gateway, {
      token: claimed.token,
      amountMinor: claimed.amountMinor,
      currencyCode: claimed.currencyCode,
      idempotencyKey: claimed.idempotencyKey,
      description: `Invoice ${claimed.invoiceId}`,
    });
  } catch (error) {
    if (error instanceof GatewayTimeoutError) summary.unanswered += 1;
    // One invoice must not hold back the others; its attempt is finished by a later run.
    else ctx.log.error({ err: error, invoiceId: claimed.invoiceId }, 'collecting an invoice failed');
    return undefined;
  }
}

/**
 * The answers recorded in one transaction; when it fails, each on its own (one that cannot be recorded stays
 * `started`, and a later run asks the gateway again).
 */
async function recordBatch(
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

/** afterRetriesRanOut, whose failure is logged: the payment is recorded, and the next failure tries again. */
async function afterRetriesRanOutLogged(ctx: ServiceContext, customerId: number): Promise<void> {
  try {
    await afterRetriesRanOut(ctx, customerId);
  } catch (error) {
    ctx.log.error({ err: error, customerId }, 'the actions after retries ran out failed');
  }
}

/** The run of failures the invoice is in: when its first failure (a decline or an error) was, and how many technical errors end it. */
function failureRun(attempts: readonly AttemptRow[], at: string) {
  const failures = attempts.filter((a) => a.state === 'declined' || a.state === 'error');
  let technicalInRow = 0;
  for (let i = attempts.length - 1; i >= 0 && attempts[i]!.state === 'error'; i -= 1) technicalInRow += 1;
  return { firstFailureAt: failures[0]?.started_at ?? at, technicalInRow };
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
interface Recorded {
  recorded: boolean;
  exhausted: boolean;
  events: EventToEmit[];
  /** The payment a collected charge made, for its attempt to point at. */
  payment?: repo.AttemptPayment;
}

const NOT_RECORDED: Recorded = { recorded: false, exhausted: false, events: [] };

type Collected = Extract<ChargeResult, { outcome: 'succeeded' | 'pending' }>;
type Failed = Extract<ChargeResult, { outcome: 'declined' | 'error' }>;

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
    const recorded: Recorded[] = [];
    for (const { claimed, result } of answered) {
      if (!finished.has(claimed.attemptId)) recorded.push(NOT_RECORDED);
      else if (isCollected(result))
        recorded.push(await recordCollected(tctx, claimed, result, owing.get(claimed.invoiceId)));
      else {
        const snapshot = before.get(claimed.invoiceId) ?? {
          ref: invoiceRef(claimed.invoiceId),
          object: undefined,
        };
        recorded.push(await recordFailed(tctx, claimed, result, snapshot, at));
      }
    }
    // Each collected invoice's try counted, and no next one (docs/design/collections.md, "NumTries and NextTryDate").
    await setCollectionSchedules(tctx, collectedIds, { addTry: true, nextTryDate: null });
    await repo.setAttemptPayments(
      tctx.db,
      tctx.account.id,
      recorded.flatMap((one) => (one.payment ? [one.payment] : [])),
    );
    await emitEvents(
      tctx,
      recorded.flatMap((one) => one.events),
    );
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
  const sameAnswer = new Map<string, { changes: repo.FinishedAttempt; attemptIds: number[] }>();
  for (const { claimed, result } of answered) {
    const failed = result.outcome === 'declined' || result.outcome === 'error';
    const changes = {
      state: result.outcome,
      reason: failed ? result.reason : null,
      raw_code: failed ? result.rawCode : null,
      retry_class: failed ? retryClassOf(result.reason) : null,
      finished_at: at,
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
 * A charge that collected the money (or will: pending): the payment, allocated to what the invoice owes now
 * (`owing`, locked), for the attempt to point at. It is told by its allocation's invoice events.
 */
async function recordCollected(
  ctx: ServiceContext,
  claimed: Claimed,
  result: Collected,
  owing: AllocatableInvoice | undefined,
): Promise<Recorded> {
  const recorded = await recordCollectedPayment(ctx, {
    ...attemptPayment(ctx, claimed),
    allocateMinor: owing && !owing.refusal ? Math.max(0, Math.min(owing.openMinor, claimed.amountMinor)) : 0,
    state: result.outcome === 'succeeded' ? 'settled' : 'pending',
    ref: result.chargeId,
  });
  return {
    recorded: true,
    exhausted: false,
    events: recorded.events,
    payment: { attemptId: claimed.attemptId, paymentId: recorded.paymentId, chargeId: result.chargeId },
  };
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
  before: Snapshot,
  at: string,
): Promise<Recorded> {
  const ref = before.ref;
  const next = await nextTryAfter(ctx, claimed, result, at);
  const declined = result.outcome === 'declined';
  const events = declined ? await recordDecline(ctx, claimed, result) : [];
  await setCollectionSchedule(ctx, claimed.invoiceId, { addTry: declined, nextTryDate: next.at });
  // A decline is announced as such; a technical error only moved NextTryDate.
  events.push({ type: declined ? 'invoice.payment_failed' : 'invoice.updated', ref, before });
  if (next.exhausted) {
    events.push({ type: 'invoice.collection_exhausted', ref });
    await queueRetriesRanOutMails(ctx, claimed, result.reason, 'card');
  }
  return { recorded: true, exhausted: next.exhausted, events };
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
 * When the invoice is tried next after this failure, on the account's schedule (core/dunning.ts), and whether its
 * retries ran out.
 */
async function nextTryAfter(
  ctx: ServiceContext,
  claimed: Claimed,
  result: Failed,
  at: string,
): Promise<{ at: string | null; exhausted: boolean }> {
  const attempts = await repo.listAttemptsOfInvoice(ctx.db, ctx.account.id, claimed.invoiceId);
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

/**
 * A decline is a payment that failed, with its reason (a technical error made no payment at all); the events of
 * recording it.
 */
async function recordDecline(
  ctx: ServiceContext,
  claimed: Claimed,
  result: Extract<ChargeResult, { outcome: 'declined' }>,
): Promise<EventToEmit[]> {
  const recorded = await recordCollectedPayment(ctx, {
    ...attemptPayment(ctx, claimed),
    allocateMinor: 0,
    state: 'failed',
    ref: null,
    failureReason: result.reason,
    failureCode: result.rawCode,
  });
  await repo.setAttemptPayment(ctx.db, ctx.account.id, claimed.attemptId, recorded.paymentId);
  // A card the issuer will never honour again (lost, stolen, expired, closed) is no longer valid.
  if (retryClassOf(result.reason) !== 'hard') return [...recorded.events];
  return [...recorded.events, ...(await invalidatePaymentMethod(ctx, claimed.paymentMethodId))];
}

export interface UncollectedInvoice {
  customerId: number;
  invoiceId: number;
  currencyCode: string;
  amountMinor: number;
}

/**
 * Tells the customer that its invoice could not be collected (retriesRanOutMail): one message to its Email (copied
 * to EmailCC) and one to each active contact, queued in the transaction that records the last failure.
 */
export async function queueRetriesRanOutMails(
  ctx: ServiceContext,
  uncollected: UncollectedInvoice,
  reason: string,
  from: CollectedFrom,
): Promise<void> {
  const invoice = await getInvoice(ctx, uncollected.invoiceId);
  await queueCustomerMails(
    ctx,
    uncollected.customerId,
    retriesRanOutMail(
      ctx.account.name,
      {
        invoiceNum: invoice.invoiceNum,
        currencyCode: uncollected.currencyCode,
        amountMinor: uncollected.amountMinor,
      },
      reason,
      from,
    ),
  );
}

/**
 * The account's actions when retries run out (PUT /v1/account; off by default): suspend the customer, cancel its
 * subscriptions at the end of their period. Each is its own change with its own event; one that fails (a
 * subscription already ended) does not stop the others.
 */
export async function afterRetriesRanOut(ctx: ServiceContext, customerId: number): Promise<void> {
  const { suspendCustomer, cancelSubscriptions } = ctx.account.dunning;
  if (suspendCustomer) await setCustomerSuspended(ctx, customerId, true);
  if (!cancelSubscriptions) return;
  for (const subscriptionId of await liveSubscriptionIdsOfCustomer(ctx, customerId)) {
    try {
      await cancelSubscription(ctx, subscriptionId, 'renewal');
    } catch (error) {
      ctx.log.warn(
        { err: error, subscriptionId },
        'cancelling a subscription after failed collection failed',
      );
    }
  }
}

/** Those of the invoices being charged now (an attempt waiting for its answer), for the invoices' read model. */
export async function invoicesInFlight(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Set<number>> {
  return new Set(await repo.listInvoicesWithOpenAttempts(ctx.db, ctx.account.id, invoiceIds));
}

/** For the paymentMethods port: charges of the method still waiting for the gateway's answer. */
export function openCollectionAttempts(ctx: ServiceContext, paymentMethodId: number): Promise<number> {
  return repo.countOpenAttemptsOfMethod(ctx.db, ctx.account.id, paymentMethodId);
}
