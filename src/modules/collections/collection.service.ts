import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { DEFAULT_DUNNING_POLICY, nextTryAfterFailure, retryClassOf } from '../../core/dunning.ts';
import type { DunningPolicy } from '../../core/dunning.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import {
  GatewayTimeoutError,
  canCharge,
  chargeStoredMethod,
  getGateway,
  isGatewayUsable,
} from '../gateways/index.ts';
import type { ChargeResult, Gateway } from '../gateways/index.ts';
import {
  collectionMethodOf,
  findInvoiceDue,
  getInvoice,
  listInvoicesDue,
  lockInvoicesForAllocation,
  setCollectionProblem,
  setCollectionSchedule,
} from '../invoicing/index.ts';
import type { CollectableInvoice } from '../invoicing/index.ts';
import { recordCollectedPayment, withLockedCustomer } from '../ledger/index.ts';
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
const DEFAULT_STALE_AFTER_MS = 120_000;

interface Claimed {
  attemptId: number;
  invoiceId: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  idempotencyKey: string;
  gateway: Gateway;
  paymentMethodId: number;
  token: string;
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
  for (const attempt of await repo.listStaleAttempts(
    ctx.db,
    ctx.account.id,
    staleBefore,
    INVOICES_PER_PAGE,
  )) {
    try {
      await chargeAndRecord(ctx, await claimedFromAttempt(ctx, attempt), summary);
    } catch (error) {
      // The next run asks again; one attempt must not hold back the others.
      ctx.log.error({ err: error, attemptId: attempt.id }, 'finishing an unanswered charge failed');
    }
    await yieldToOtherWork();
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
    for (const invoice of due) {
      try {
        const claimed = await claimAttempt(ctx, invoice);
        if (claimed) await chargeAndRecord(ctx, claimed, summary);
      } catch (error) {
        // One invoice must not hold back the others; its attempt, if claimed, is finished by a later run.
        ctx.log.error({ err: error, invoiceId: invoice.id }, 'collecting an invoice failed');
      }
      await yieldToOtherWork();
    }
    if (due.length < INVOICES_PER_PAGE) break;
    afterId = due.at(-1)!.id;
  }
  return summary;
}

async function chargeableMethod(
  ctx: ServiceContext,
  customerId: number,
  gatewayId: number,
  paymentMethodId: number,
): Promise<{ gateway: Gateway; token: string } | undefined> {
  const gateway = await getGateway(ctx, gatewayId).catch(() => undefined);
  const method = (await unopenedPaymentMethodsByIds(ctx, [paymentMethodId])).get(paymentMethodId);
  if (!gateway || !isGatewayUsable(gateway) || !canCharge(gateway)) return undefined;
  if (!method || method.customerId !== customerId || method.type !== 'credit_card' || !method.isValid)
    return undefined;
  return { gateway, token: method.token };
}

/**
 * Starts the next attempt at the invoice, unless it is paid, in flight, no longer due or has no usable method;
 * undefined then. Everything is read again under the customer's lock: the list it came from may be stale.
 */
async function claimAttempt(ctx: ServiceContext, listed: CollectableInvoice): Promise<Claimed | undefined> {
  let mailQueued = false;
  try {
    const claimed = await withLockedCustomer(ctx, listed.customerId, async (tctx) => {
      const invoice = await findInvoiceDue(tctx, 'credit_card', listed.id, nowInstant(tctx), today(tctx));
      if (!invoice) return undefined;
      const [target] = await lockInvoicesForAllocation(tctx, invoice.customerId, [invoice.id], []);
      if (!target || target.refusal || target.openMinor <= 0) return undefined;
      const attempts = await repo.listAttemptsOfInvoice(tctx.db, tctx.account.id, invoice.id);
      if (attempts.some((attempt) => attempt.state === 'started')) return undefined;
      if (invoice.blocked) {
        if (await reportBlockedCollection(tctx, invoice)) mailQueued = true;
        return undefined;
      }
      const { gatewayId, paymentMethodId } = invoice;
      if (gatewayId === null || paymentMethodId === null) return undefined;
      const usable = await chargeableMethod(tctx, invoice.customerId, gatewayId, paymentMethodId);
      if (!usable) {
        tctx.log.warn(
          { invoiceId: invoice.id },
          'invoice not collected: its gateway or payment method is not usable',
        );
        return undefined;
      }
      const attemptNo = attempts.length + 1;
      const claimed = {
        invoiceId: invoice.id,
        customerId: invoice.customerId,
        currencyCode: invoice.currencyCode,
        amountMinor: target.openMinor,
        idempotencyKey: `inv_${invoice.id}_try_${attemptNo}`,
        gateway: usable.gateway,
        paymentMethodId,
        token: usable.token,
      };
      const attemptId = await repo.insertAttempt(tctx.db, {
        account_id: tctx.account.id,
        invoice_id: invoice.id,
        customer_id: invoice.customerId,
        attempt_no: attemptNo,
        idempotency_key: claimed.idempotencyKey,
        gateway_id: gatewayId,
        payment_method_id: paymentMethodId,
        token: usable.token,
        amount_minor: target.openMinor,
        currency_code: invoice.currencyCode,
        state: 'started',
        started_at: nowInstant(tctx),
        leased_at: tctx.wallClock.now().toISOString(),
      });
      // In flight: no next try until this one is answered (docs/design/collections.md, "NumTries and NextTryDate").
      await setCollectionSchedule(tctx, invoice.id, { addTry: false, nextTryDate: null });
      // The customer's settings can collect it again: the problem they were told of is solved.
      if (invoice.reportedProblem !== null) await setCollectionProblem(tctx, invoice.id, null);
      return { attemptId, ...claimed };
    });
    if (mailQueued) ctx.mailQueued();
    return claimed;
  } catch (error) {
    // Another process started this attempt at the same moment: it is theirs.
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/**
 * An attempt left `started` (a crash, a timeout), to be finished by asking the gateway again with its key and the
 * token it charged. NOTE: even a gateway disabled since is asked: the charge may have been made, and only the
 * provider knows.
 */
async function claimedFromAttempt(ctx: ServiceContext, attempt: AttemptRow): Promise<Claimed> {
  return {
    attemptId: attempt.id,
    invoiceId: attempt.invoice_id,
    customerId: attempt.customer_id,
    currencyCode: attempt.currency_code,
    amountMinor: attempt.amount_minor,
    idempotencyKey: attempt.idempotency_key,
    gateway: await getGateway(ctx, attempt.gateway_id),
    paymentMethodId: attempt.payment_method_id,
    token: attempt.token,
  };
}

async function chargeAndRecord(
  ctx: ServiceContext,
  claimed: Claimed,
  summary: CollectionSummary,
): Promise<void> {
  let result: ChargeResult;
  try {
    result = await chargeStoredMethod(ctx, claimed.gateway, {
      token: claimed.token,
      amountMinor: claimed.amountMinor,
      currencyCode: claimed.currencyCode,
      idempotencyKey: claimed.idempotencyKey,
      description: `Invoice ${claimed.invoiceId}`,
    });
  } catch (error) {
    if (!(error instanceof GatewayTimeoutError)) throw error;
    summary.unanswered += 1;
    return;
  }
  const recorded = await recordOutcome(ctx, claimed, result);
  if (!recorded.recorded) return;
  if (recorded.exhausted) {
    summary.exhausted += 1;
    ctx.mailQueued();
    await afterRetriesRanOut(ctx, claimed.customerId);
  }
  if (result.outcome === 'error') summary.errors += 1;
  else {
    summary.attempts += 1;
    if (result.outcome === 'declined') summary.declined += 1;
    else summary.succeeded += 1;
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
 * Whether the answer was recorded (false when another process recorded this attempt first), and whether it ended
 * the invoice's retries.
 */
interface Recorded {
  recorded: boolean;
  exhausted: boolean;
}

const NOT_RECORDED: Recorded = { recorded: false, exhausted: false };

type Collected = Extract<ChargeResult, { outcome: 'succeeded' | 'pending' }>;
type Failed = Extract<ChargeResult, { outcome: 'declined' | 'error' }>;

/** Records what the gateway answered, under the customer's lock: the money collected, or the failure. */
function recordOutcome(ctx: ServiceContext, claimed: Claimed, result: ChargeResult): Promise<Recorded> {
  return withLockedCustomer(ctx, claimed.customerId, (tctx) =>
    result.outcome === 'succeeded' || result.outcome === 'pending'
      ? recordCollected(tctx, claimed, result)
      : recordFailed(tctx, claimed, result),
  );
}

/**
 * A charge that collected the money (or will: pending): the payment, allocated to what the invoice owes now, the
 * attempt pointing at it and the invoice's try counted. It is told by its allocation's invoice events.
 */
async function recordCollected(ctx: ServiceContext, claimed: Claimed, result: Collected): Promise<Recorded> {
  if (!(await finishAttempt(ctx, claimed, result, nowInstant(ctx)))) return NOT_RECORDED;
  // What the invoice owes now: money that arrived by other means since the claim stays unallocated.
  const [target] = await lockInvoicesForAllocation(ctx, claimed.customerId, [claimed.invoiceId], []);
  const recorded = await recordCollectedPayment(ctx, {
    ...attemptPayment(ctx, claimed),
    allocateMinor:
      target && !target.refusal ? Math.max(0, Math.min(target.openMinor, claimed.amountMinor)) : 0,
    state: result.outcome === 'succeeded' ? 'settled' : 'pending',
    ref: result.chargeId,
  });
  await repo.setAttemptPayment(
    ctx.db,
    ctx.account.id,
    claimed.attemptId,
    recorded.paymentId,
    result.chargeId,
  );
  await setCollectionSchedule(ctx, claimed.invoiceId, { addTry: true, nextTryDate: null });
  await emitEvents(ctx, recorded.events);
  return { recorded: true, exhausted: false };
}

/**
 * A decline or a technical error: the invoice's next try, a decline's failed payment, the invoice's change told
 * with `previous` and, when this failure ended its retries, the customer told. A technical error counts no try.
 */
async function recordFailed(ctx: ServiceContext, claimed: Claimed, result: Failed): Promise<Recorded> {
  const at = nowInstant(ctx);
  const ref = { type: 'invoice', id: claimed.invoiceId };
  const before = await snapshotResource(ctx, ref);
  if (!(await finishAttempt(ctx, claimed, result, at))) return NOT_RECORDED;
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
  await emitEvents(ctx, events);
  return { recorded: true, exhausted: next.exhausted };
}

/** Marks the attempt finished with the gateway's answer; false when another process finished it first. */
function finishAttempt(
  ctx: ServiceContext,
  claimed: Claimed,
  result: ChargeResult,
  at: string,
): Promise<boolean> {
  const failed = result.outcome === 'declined' || result.outcome === 'error';
  return repo.finishAttempt(ctx.db, ctx.account.id, claimed.attemptId, {
    state: result.outcome,
    reason: failed ? result.reason : null,
    raw_code: failed ? result.rawCode : null,
    retry_class: failed ? retryClassOf(result.reason) : null,
    finished_at: at,
  });
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
