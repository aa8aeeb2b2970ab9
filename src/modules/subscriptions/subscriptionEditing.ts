import Big from 'big.js';
import { today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Bracket } from '../catalogue/index.ts';
import { planBilling } from './subscriptionBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import type { SubscriptionTimeline, UnbilledUsage } from './subscriptionBilling.ts';
import type { SubscriptionStatus } from './subscriptionStatus.ts';
import { upcomingInvoiceOf } from './subscriptionUpcoming.ts';
import { canonicalDecimal } from '../../core/wireDecimal.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import * as repo from './subscription.repository.ts';
import type { NewSubscriptionUsage } from './subscription.repository.ts';
import type { SubscriptionUsage } from './subscription.ts';
import { withSubscriptionEvents } from './subscriptionEvents.ts';
import { billSubscription } from './subscriptionBilling.service.ts';
import { statusOf, timelineOf } from './subscriptionTimeline.ts';
import type { SubscriptionRecord } from './subscription.ts';
import { usagePeriodAt } from './usagePeriods.ts';
import type { UsagePeriod } from './usagePeriods.ts';

/**
 * What the use cases that write a subscription share: holding it while it changes, the date the bill run next
 * looks at it, the usage period of today, billing at once what a change made due, and the rows of its components
 * and usage.
 */

/** The label names invoice lines only; nothing computed here depends on it. */
export function timelineFor(ctx: ServiceContext, row: SubscriptionRecord): SubscriptionTimeline {
  return timelineOf(row, `Package ${row.packageId}`, ctx.account.timeZone);
}

/** Reads the subscription and holds it until the transaction ends; 404 when the account cannot see it. */
export async function lockSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<SubscriptionRecord> {
  const row = await repo.lockSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId);
  if (!row) throw new NotFoundError('Subscription', subscriptionId);
  return row;
}

/**
 * Runs `work` in a transaction (the caller's, when the context is in one: a preview) with the subscription held
 * and today's date in the account's zone, so that changes to one subscription are made one at a time. The
 * change's events (`eventType`, and the lifecycle events of a status move) are written with it.
 */
export function withSubscriptionHeld<T>(
  ctx: ServiceContext,
  subscriptionId: number,
  work: (tctx: ServiceContext, row: SubscriptionRecord, on: PlainDate) => Promise<T>,
  eventType = 'subscription.updated',
): Promise<T> {
  const on = today(ctx);
  return withTransaction(ctx, async (tctx) => {
    const row = await lockSubscription(tctx, subscriptionId);
    return withSubscriptionEvents(tctx, subscriptionId, eventType, () => work(tctx, row, on));
  });
}

/** A broken record is the bill run's to park; a change to it is refused rather than made on a wrong basis. */
export function invariantConflict(
  error: unknown,
  subscriptionId: number,
  consequence = 'it cannot be changed',
): unknown {
  return error instanceof BillingInvariantError || error instanceof SyntaxError
    ? new ConflictError(
        'subscription_invalid',
        `Subscription ${subscriptionId} has an inconsistent record (${error.message}); ${consequence}`,
      )
    : error;
}

/** Runs `change` with the subscription held, refusing one that has stopped billing (cancelled or expired). */
export function changeSubscription<T>(
  ctx: ServiceContext,
  subscriptionId: number,
  change: (tctx: ServiceContext, row: SubscriptionRecord, on: PlainDate) => Promise<T>,
  // Paused: no period runs to change (docs/subscriptions.md, "While paused").
  refuse: SubscriptionStatus[] = ['Cancelled', 'Expired', 'Paused'],
  eventType = 'subscription.updated',
): Promise<T> {
  return withSubscriptionHeld(
    ctx,
    subscriptionId,
    async (tctx, row, on) => {
      const status = statusOf(row, on);
      // Nothing changes a subscription waiting for its first payment, or one that expired waiting (it is read only).
      if (refuse.includes(status) || status === 'Incomplete' || status === 'IncompleteExpired') {
        throw new ConflictError(
          `subscription_${status.toLowerCase()}`,
          status === 'Future'
            ? `Subscription ${subscriptionId} starts on ${row.startDate}; usage is recorded from then`
            : `Subscription ${subscriptionId} is ${status.toLowerCase()}`,
        );
      }
      try {
        return await change(tctx, row, on);
      } catch (error) {
        throw invariantConflict(error, subscriptionId);
      }
    },
    eventType,
  );
}

// Scheduling.

/** Usage is priced by the bill run; scheduling needs only its dates, so it is planned here at no charge. */
const NO_CHARGE: Bracket[] = [{ qtyFrom: '0', qtyTill: null, price: '0' }];

/**
 * The date the bill run should next look at the subscription (next_inv_date), as the billing core plans it: the
 * first invoice due (today or earlier) if any is, else the next one's date; null when nothing is left to bill.
 */
export function scheduledInvoiceDate(
  timeline: SubscriptionTimeline,
  unbilled: SubscriptionUsage[],
  on: PlainDate,
): PlainDate | null {
  const plan = planBilling(timeline, unpricedUsage(unbilled), on);
  return plan.invoices[0]?.invoiceDate ?? plan.next.nextInvDate;
}

/**
 * The date of the next invoice the subscription will get (comp_nextInvDate), which the upcoming-invoice preview
 * shows: the first with a line, past the days the bill run only records a free trial's period.
 */
export function upcomingInvoiceDate(
  timeline: SubscriptionTimeline,
  unbilled: SubscriptionUsage[],
): PlainDate | null {
  return upcomingInvoiceOf(timeline, unpricedUsage(unbilled))?.invoiceDate ?? null;
}

function unpricedUsage(unbilled: SubscriptionUsage[]): UnbilledUsage[] {
  return unbilled.map((u) => ({
    usageId: u.id,
    label: '',
    unitName: '',
    periodStart: u.periodStart,
    periodEnd: u.periodEnd,
    units: '0',
    scheme: 'unit',
    brackets: NO_CHARGE,
  }));
}

/** The billed period holding today (or the start, before it), which usage recorded today belongs to if any. */
export async function billedPeriodNow(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  on: PlainDate,
): Promise<UsagePeriod | null> {
  const day = row.startDate > on ? row.startDate : on;
  const billed = await repo.findBilledPeriod(ctx.db, ctx.account.id, row.id, day);
  return billed ?? null;
}

/** The usage period for usage recorded today (or before the start: the first one); null once billing stopped. */
export async function currentUsagePeriod(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  on: PlainDate,
): Promise<UsagePeriod | null> {
  return usagePeriodAt(timelineFor(ctx, row), await billedPeriodNow(ctx, row, on), on);
}

/**
 * Bills the subscription at once when an invoice is due, after the change that made it due has committed. A
 * failure here does not undo that change: the subscription stays due and the bill run bills it on its next round.
 */
export async function billIfDue(
  ctx: ServiceContext,
  subscriptionId: number,
  nextInvDate: PlainDate | null,
): Promise<number[]> {
  if (nextInvDate === null || nextInvDate > today(ctx)) return [];
  try {
    return await billSubscription(ctx, subscriptionId, { catchUp: true });
  } catch (error) {
    ctx.log.error(
      { err: error, subscriptionId },
      'billing a subscription at once failed; the bill run will retry',
    );
    return [];
  }
}

// Usage.

/** What a usage record is set to: units (set or added, see `isSetUnits`) and a memo, each only when given. */
export interface UsageValues {
  units?: Big;
  memo?: string | null;
  isSetUnits: boolean;
}

/** The usage a component gets in a period when first recorded. */
export function newUsage(
  subscriptionId: number,
  componentId: number,
  period: UsagePeriod,
  values: UsageValues,
  now: string,
): NewSubscriptionUsage {
  return {
    subscriptionId,
    componentId,
    periodStart: period.start,
    periodEnd: period.end,
    numUnits: canonicalDecimal(values.units ?? new Big(0)),
    memo: values.memo ?? null,
    isSetUnits: values.units !== undefined && values.isSetUnits,
    updatedAt: now,
  };
}
