import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { GatewayTimeoutError, chargeStoredMethod, findChargeByKey } from '../gateways/index.ts';
import type { StoredChargeResult as ChargeResult } from '../gateways/index.ts';
import { listInvoicesDue } from '../invoicing/index.ts';
import * as repo from './collectionAttempt.repository.ts';
import { claimBatch, claimedFromAttempts } from './collectionClaim.service.ts';
import type { Claimed } from './collectionClaim.service.ts';
import { recordBatch } from './collectionRecord.service.ts';
import type { Answered } from './collectionRecord.service.ts';
import { afterRetriesRanOut } from './retriesRanOut.service.ts';
import { finishUnansweredRefunds } from './gatewayRefund.service.ts';
import { finishUnansweredPortalPayments } from './payNow.service.ts';
import { applyChargeEvents } from './chargeEvents.service.ts';
import { invoicesWithSalesInFlight } from './salesInFlightOf.ts';

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
  /**
   * The run is one of several catching up to this later day (a test clock's jump): the customer is not sent each
   * day's reminder at once, only the latest due on that day (docs/gateways.md, "The collection loop").
   */
  catchingUpTo?: string;
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

/**
 * The gateway's answer to the claimed attempt; undefined when there is none yet (finished by a later run). An
 * attempt asked before is first looked up by its key, which outlives the provider's idempotency window (Stripe
 * keeps a key 24 hours): only a charge the provider cannot find is asked again, still under the same key.
 */
async function charge(
  ctx: ServiceContext,
  claimed: Claimed,
  summary: CollectionSummary,
): Promise<ChargeResult | undefined> {
  try {
    if (claimed.askedBefore) {
      const found = await findChargeByKey(ctx, claimed.gateway, claimed.idempotencyKey);
      if (found.outcome !== 'not_found') return found;
    }
    return await chargeStoredMethod(ctx, claimed.gateway, {
      sealedToken: claimed.sealedToken,
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

/** afterRetriesRanOut, whose failure is logged: the payment is recorded, and the next failure tries again. */
async function afterRetriesRanOutLogged(ctx: ServiceContext, customerId: number): Promise<void> {
  try {
    await afterRetriesRanOut(ctx, customerId);
  } catch (error) {
    ctx.log.error({ err: error, customerId }, 'the actions after retries ran out failed');
  }
}

/** Those of the invoices being charged now (an attempt waiting for its answer), for the invoices' read model. */
export async function invoicesInFlight(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Set<number>> {
  return new Set(await repo.listInvoicesWithOpenAttempts(ctx.db, ctx.account.id, invoiceIds));
}

/**
 * Those of the invoices being collected right now: a charge waiting for its answer (an attempt `started`), or a
 * capture widget's sale under way. Credit leaves them to that answer (docs/gateways.md, "Credit first"); the credits
 * module asks the same through its port (src/modulePorts.ts).
 */
export async function invoicesBeingCollected(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Set<number>> {
  if (invoiceIds.length === 0) return new Set();
  return new Set([
    ...(await invoicesInFlight(ctx, invoiceIds)),
    ...(await invoicesWithSalesInFlight(ctx, invoiceIds)),
  ]);
}

/** For the paymentMethods port: charges of the method still waiting for the gateway's answer. */
export function openCollectionAttempts(ctx: ServiceContext, paymentMethodId: number): Promise<number> {
  return repo.countOpenAttemptsOfMethod(ctx.db, ctx.account.id, paymentMethodId);
}
