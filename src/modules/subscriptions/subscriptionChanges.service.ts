import { inTransaction, nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { maxDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { creditsForCut } from './subscriptionChanges.ts';
import { noticeCancellation } from './cancellationNotice.ts';
import type { CreditRule, PeriodCredit } from './subscriptionChanges.ts';
import { invoiceDateOf } from './subscriptionBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import { upcomingInvoiceOf } from './subscriptionUpcoming.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { invoiceTaxParts, invoiceTaxPercs } from '../invoicing/index.ts';
import type { NewInvoice } from '../invoicing/index.ts';
import { applyCustomerCredit } from '../ledger/index.ts';
import { issueSubscriptionCredit } from './subscriptionCredits.service.ts';
import * as repo from './subscriptionChanges.repository.ts';
import { assertInvoiceWithinBounds, billSubscriptionInTransaction } from './subscriptionBilling.service.ts';
import { billingInputs, usageToPlan } from './subscriptionBillingInputs.service.ts';
import type { BillingInputs } from './subscriptionBillingInputs.service.ts';
import { applyCoupons, couponSubscriptionOf } from './subscriptionCoupons.ts';
import { listUnbilledUsageOf } from './subscription.repository.ts';
import type { SubscriptionRecord } from './subscription.ts';
import {
  currentUsagePeriod,
  invariantConflict,
  scheduledInvoiceDate,
  withSubscriptionHeld,
} from './subscriptionEditing.ts';
import { timelineOf } from './subscriptionTimeline.ts';
import { withdrawScheduledPause } from './subscriptionPauseSchedule.service.ts';
import type { SubscriptionTimeline, UnbilledUsage } from './subscriptionBilling.ts';
import {
  currentMeteredUsage,
  finalCorrectionOfRecord,
  hasMeteredComponents,
  meteredUsageOf,
} from './meteredUsage.service.ts';
import type { CurrentUsage } from './meteredUsage.service.ts';
import { eventsUnbilledAtStop, stopDateOf } from './meteredUsage.ts';

export const CANCEL_TYPES = ['renewal', 'norefund', 'prorata', 'fullcredit'] as const;
export type CancelType = (typeof CANCEL_TYPES)[number];

/** What a change did (or, previewed, would do): credits owed and invoices made. */
export interface ChangeResult {
  /** Each with the credit_note adjustment that issued it (null for a credit of nothing). */
  credits: (PeriodCredit & { descrip: string; adjustmentId?: number | null })[];
  invoiceIds: number[];
}

export async function findOrThrow(ctx: ServiceContext, subscriptionId: number): Promise<SubscriptionRecord> {
  const row = await repo.findSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId);
  if (!row) throw new NotFoundError('Subscription', subscriptionId);
  return row;
}

export function assertNotEnded(row: SubscriptionRecord, day: PlainDate): void {
  if (row.cancelDate !== null && row.cancelDate <= day) {
    throw new ConflictError('subscription_cancelled', `Subscription ${row.id} is cancelled`);
  }
  if (row.endDate !== null && row.endDate <= day) {
    throw new ConflictError('subscription_expired', `Subscription ${row.id} has expired`);
  }
}

/**
 * Cuts the billed periods at `cutDate` and credits what the rule says: each credit is recorded
 * (subscription_credits) and issued as a credit_note adjustment in the change's transaction. A cancellation's is
 * auto-applied to the customer's earliest open invoices (the cut one among them, when unpaid), the rest staying as
 * the customer's credit; a change's is left for payChangeFromCredit, which pays the change's own invoice first.
 */
export async function cutBilledTime(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  cutDate: PlainDate,
  rule: CreditRule,
  reason: 'Cancelled' | 'Changed' | 'Paused',
): Promise<ChangeResult['credits']> {
  const periods = await repo.listPeriodsEndingAfter(ctx.db, ctx.account.id, row.id, cutDate);
  const invoiceIds = periods.flatMap((p) => (p.invoiceId === null ? [] : [p.invoiceId]));
  const percs = await invoiceTaxPercs(ctx, invoiceIds);
  // A period billed in parts at different rates is credited at the rates of its unused days (subscriptionChanges.ts).
  const parts = await invoiceTaxParts(ctx, invoiceIds);
  const partsOf = (p: (typeof periods)[number]) =>
    (p.invoiceId === null ? [] : (parts.get(p.invoiceId) ?? [])).filter(
      (part) => part.start >= p.periodStart && part.end <= p.periodEnd,
    );
  const { credits, cuts } = creditsForCut(
    periods.map((p) => ({
      periodNo: p.periodNo,
      start: p.periodStart,
      end: p.periodEnd,
      amountMinor: p.amountMinor,
      taxPercs: p.invoiceId === null ? [] : (percs.get(p.invoiceId) ?? []),
      taxParts: partsOf(p),
      isTaxInclusive: p.isTaxInclusive,
    })),
    cutDate,
    rule,
  );
  for (const cut of cuts) await repo.cutPeriod(ctx.db, ctx.account.id, row.id, cut);
  const described: ChangeResult['credits'] = credits.map((credit) => ({
    ...credit,
    descrip: `${reason}: unused ${credit.start} to ${credit.end}`,
    adjustmentId: null,
  }));
  for (const credit of described) {
    credit.adjustmentId = await issueSubscriptionCredit(
      ctx,
      row,
      {
        amountMinor: credit.totalMinor,
        descrip: credit.descrip,
        start: credit.start,
        end: credit.end,
        invoiceId: periods.find((period) => period.periodNo === credit.periodNo)?.invoiceId ?? null,
        ...(credit.taxParts ? { taxParts: credit.taxParts } : {}),
      },
      { date: today(ctx), autoApply: reason !== 'Changed' },
    );
  }
  return described;
}

/**
 * A change made now charges what its preview said (docs/pricing.md, "Changes and their credits"): the credit for
 * the unused time pays the invoices the change made first, whatever ApplyCreditBeforeCollecting says, then the
 * customer's other open invoices, earliest first; what is left stays as the customer's credit.
 */
export async function payChangeFromCredit(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  credits: ChangeResult['credits'],
  invoiceIds: readonly number[],
): Promise<void> {
  const sources = credits.flatMap((credit) =>
    credit.adjustmentId ? [{ type: 'adjustment' as const, id: credit.adjustmentId }] : [],
  );
  if (sources.length === 0) return;
  await applyCustomerCredit(ctx, {
    customerId: row.customerId,
    currencyCode: row.currencyCode,
    invoiceIds,
    sources,
    thenOpenInvoices: true,
  });
}

/**
 * Cancels (public notes: renewal at the end of the term; norefund, prorata and fullcredit now). Cancelled
 * subscriptions are never billed again; a cancellation at renewal is a future change until its date.
 */
export async function cancelSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
  type: CancelType,
  options: { reason?: string } = {},
): Promise<ChangeResult> {
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    const trx = tctx.db;
    assertNotEnded(row, day);
    // Nothing billed yet, or cancelling at renewal: billing stops where the billed time ends.
    const cancelDate = type === 'renewal' ? maxDate(row.nextRenewDate ?? row.startDate, day) : day;
    const rule: CreditRule = type === 'prorata' ? 'prorata' : type === 'fullcredit' ? 'fullcredit' : 'none';
    // Billed time is cut at the cancellation, or at the StartDate for time billed ahead of it (as a change does):
    // cut dates then only move forward, and a period cut to empty is never cut, nor credited, again.
    const cutDate = maxDate(cancelDate, row.startDate);
    const credits = type === 'renewal' ? [] : await cutBilledTime(tctx, row, cutDate, rule, 'Cancelled');
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      cancelType: type,
      cancelDate: cancelDate,
      cancelledAt: nowInstant(ctx),
      // The customer's reason, from the portal's cancel (docs/portal.md, "Cancel with a way to stay").
      cancelReason: options.reason ?? null,
      // Prorata and full credit end the billed time at the cancellation.
      ...(rule !== 'none' && row.nextRenewDate !== null && row.nextRenewDate > cutDate
        ? { nextRenewDate: cutDate }
        : {}),
      // Billing stops now; usage left unbilled still gets its last invoice, which the bill run dates.
      ...(cancelDate <= day
        ? {
            // Usage read from events has no row until it is billed: a metered component has usage left to bill.
            nextInvDate:
              (await repo.countUnbilledUsage(trx, ctx.account.id, row.id)) > 0 ||
              (await hasMeteredComponents(tctx, row.id))
                ? day
                : null,
          }
        : {}),
      updatedAt: nowInstant(ctx),
    });
    await noticeCancellation(tctx, row, { cancelDate, atRenewal: type === 'renewal', credits });
    return { credits, invoiceIds: [] };
  });
}

/**
 * Undoes a cancellation. One at renewal not reached yet is simply removed. After a cancellation took effect,
 * billing resumes: at the end of the time already paid for when that is still ahead (a cancellation with no
 * refund), otherwise today, with a new cycle anchored on today. Expired subscriptions cannot be reactivated.
 */
export async function reactivateSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<ChangeResult> {
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    const trx = tctx.db;
    if (row.cancelDate === null) {
      throw new ConflictError('subscription_not_cancelled', `Subscription ${row.id} is not cancelled`);
    }
    if (row.endDate !== null && row.endDate <= day) {
      throw new ConflictError('subscription_expired', `Subscription ${row.id} has expired`);
    }
    const timeline = timelineOf(row, '', ctx.account.timeZone);
    // Time already paid for that is still ahead (no refund was given) resumes where it ends.
    const paidAhead = row.nextRenewDate !== null && row.nextRenewDate > day;
    // One cancelled before anything was billed restarts too once its StartDate has passed: resuming from the
    // StartDate would bill the time it spent cancelled.
    const started = row.periodCount > 0 || row.startDate < day;
    const restart = row.cancelDate <= day && !paidAhead && started;
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      cancelType: null,
      cancelDate: null,
      cancelledAt: null,
      cancelReason: null,
      ...(restart
        ? {
            anchorDate: day,
            // A new cycle on the day of the reactivation, not on a bill-cycle day.
            billCycleDay: null,
            nextRenewDate: day,
            nextInvDate: day,
            ...(row.trialEndDate !== null && row.trialEndDate > day ? { trialEndDate: day } : {}),
          }
        : { nextInvDate: invoiceDateOf(row.nextRenewDate ?? row.startDate, timeline) }),
      updatedAt: nowInstant(ctx),
    });
    return { credits: [], invoiceIds: await billSubscriptionInTransaction(tctx, row.id, day) };
  });
}

/**
 * Removes changes scheduled for the next renewal: a package or term change and a cancellation at renewal, and a
 * scheduled pause or resume (subscriptionPauseSchedule.service.ts). What a
 * withdrawn cancellation makes due (an invoice date already passed, e.g. with numDaysBeforeToInv) is billed at once,
 * as a reactivation bills, not left for the bill run's next pass.
 */
export async function removeFutureChanges(ctx: ServiceContext, subscriptionId: number): Promise<void> {
  await withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    const trx = tctx.db;
    const scheduledCancel = row.cancelDate !== null && row.cancelDate > day;
    // Billing that met the cancellation (a change made now bills up to it) found nothing left to invoice: without
    // it, the next invoice date is planned again.
    const nextInvDate = async () => {
      const timeline = {
        ...timelineOf(row, '', ctx.account.timeZone),
        cancelDate: null,
        pendingChange: null,
      };
      const unbilled = await listUnbilledUsageOf(trx, ctx.account.id, row.id);
      try {
        return scheduledInvoiceDate(timeline, unbilled, day);
      } catch (error) {
        // A broken record is left for the bill run to park.
        if (error instanceof BillingInvariantError) return row.nextInvDate;
        throw error;
      }
    };
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      pendingChange: null,
      ...(scheduledCancel
        ? {
            cancelType: null,
            cancelDate: null,
            cancelledAt: null,
            cancelReason: null,
            nextInvDate: await nextInvDate(),
          }
        : {}),
      updatedAt: nowInstant(ctx),
    });
    if (scheduledCancel) await billSubscriptionInTransaction(tctx, row.id, day);
    await withdrawScheduledPause(tctx, row.id, day);
  });
}

/** Thrown to roll a preview's transaction back with its result. */
class PreviewRollback<T> extends Error {
  constructor(readonly result: T) {
    super('preview');
  }
}

/**
 * Runs a change for real inside a transaction and rolls it back, returning what it did and what the invoices
 * it made looked like: a preview computed by the very code that would act.
 */
export async function preview<T>(
  ctx: ServiceContext,
  change: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      throw new PreviewRollback(await change(inTransaction(ctx, trx)));
    });
  } catch (error) {
    if (error instanceof PreviewRollback) return error.result as T;
    throw error;
  }
  throw new Error('unreachable');
}

/** The next invoice the subscription will get, as the bill run would make it; null when none is coming. */
export async function upcomingInvoice(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<NewInvoice | null> {
  const row = await findOrThrow(ctx, subscriptionId);
  if (row.nextInvDate === null || row.parkedReason !== null) return null;
  const inputs = await billingInputs(ctx, [row]);
  try {
    const timeline = {
      ...timelineOf(row, inputs.labelOf(row), ctx.account.timeZone, inputs.taxInclusionOf(row)),
      ...(await stopDatesOf(ctx, row)),
    };
    const usage = await usageForPreview(ctx, row, timeline, inputs);
    const next = upcomingInvoiceOf(timeline, usage);
    // A final correction invoice with nothing late to bill is not made.
    if (!next || next.lines.length === 0) return null;
    // The coupons that will discount it, as the bill run will apply them (docs/credits.md, "Coupons").
    applyCoupons(couponSubscriptionOf(row), [next], inputs.redemptions, inputs.taxPercsOf(row, next));
    const invoice = inputs.toNewInvoice(row, next);
    assertInvoiceWithinBounds(invoice);
    return invoice;
  } catch (error) {
    // A record the core cannot plan (the bill run parks it when due) is the server's data, not the client's
    // request: a problem naming it, not a 500.
    throw invariantConflict(error, row.id, 'its next invoice cannot be planned');
  }
}

/** When its last invoices of usage read from events are due (SubscriptionTimeline). */
async function stopDatesOf(ctx: ServiceContext, row: SubscriptionRecord) {
  const billsEvents = await hasMeteredComponents(ctx, row.id);
  return {
    eventsUnbilledAtStop: eventsUnbilledAtStop(row, billsEvents),
    finalCorrectionOn: finalCorrectionOfRecord(ctx, row, billsEvents),
  };
}

/**
 * The usage the next invoice will bill, read as the bill run will read it (docs/usage.md, "Reading usage"): the
 * recorded usage, and the usage read from events through the date of the invoice that is coming, so far.
 */
async function usageForPreview(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  timeline: SubscriptionTimeline,
  inputs: BillingInputs,
): Promise<UnbilledUsage[]> {
  const recorded = inputs.usage.bySubscription.get(row.id) ?? [];
  // Usage read from events can only bring an invoice forward (a free period's gets a line): the first invoice
  // with a line without it bounds the periods to read.
  const through = upcomingInvoiceOf(timeline, recorded)?.invoiceDate ?? stopDateOf(row);
  if (through === null) return recorded;
  const metered = await meteredUsageOf(ctx, [{ row, timeline, recorded, through }]);
  const problem = metered.problems.get(row.id);
  if (problem) throw new BillingInvariantError(problem);
  return usageToPlan(inputs, metered, row.id);
}

/** GET /v1/subscriptions/{id}/usage: the usage so far of its current period, read from events and priced. */
export async function subscriptionUsage(ctx: ServiceContext, subscriptionId: number): Promise<CurrentUsage> {
  const row = await findOrThrow(ctx, subscriptionId);
  const day = today(ctx);
  try {
    return await currentMeteredUsage(ctx, row, await currentUsagePeriod(ctx, row, day));
  } catch (error) {
    throw invariantConflict(error, row.id, 'its current usage period cannot be found');
  }
}

export async function subscriptionCurrency(ctx: ServiceContext, subscriptionId: number): Promise<string> {
  return (await findOrThrow(ctx, subscriptionId)).currencyCode;
}

export function noUpcomingInvoice(subscriptionId: number): NotFoundError {
  const error = new NotFoundError('Upcoming invoice', subscriptionId);
  error.message = `Subscription ${subscriptionId} has no invoice coming (cancelled, expired, parked or fully billed)`;
  return error;
}

export async function listSubscriptionCredits(ctx: ServiceContext, subscriptionId: number) {
  await subscriptionCurrency(ctx, subscriptionId);
  return repo.listCredits(ctx.db, ctx.account.id, subscriptionId);
}

export async function listBilledPeriods(ctx: ServiceContext, subscriptionId: number) {
  const currencyCode = await subscriptionCurrency(ctx, subscriptionId);
  return { currencyCode, periods: await repo.listPeriods(ctx.db, ctx.account.id, subscriptionId) };
}

/**
 * Takes a parked subscription back into billing once its record is mended (409 unless parked) and bills what is
 * due. Should it still break an invariant, it is parked again with the reason.
 */
export async function unparkSubscription(ctx: ServiceContext, subscriptionId: number): Promise<ChangeResult> {
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    if (row.parkedReason === null) {
      throw new ConflictError('subscription_not_parked', `Subscription ${row.id} is not parked`);
    }
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, {
      parkedReason: null,
      parkedAt: null,
      updatedAt: nowInstant(ctx),
    });
    return { credits: [], invoiceIds: await billSubscriptionInTransaction(tctx, row.id, day) };
  });
}
