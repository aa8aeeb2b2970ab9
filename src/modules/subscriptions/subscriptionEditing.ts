import Big from 'big.js';
import type { Insertable } from 'kysely';
import { today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Bracket } from '../../core/pricing.ts';
import { BillingInvariantError, planBilling } from '../../core/subscriptionBilling.ts';
import type {
  SubscriptionStatus,
  SubscriptionTimeline,
  UnbilledUsage,
} from '../../core/subscriptionBilling.ts';
import { upcomingInvoiceOf } from '../../core/subscriptionUpcoming.ts';
import { canonicalDecimal } from '../../core/wireDecimal.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { SubscriptionComponentsTable, SubscriptionUsageTable } from '../../storage/schema.ts';
import * as repo from './subscription.repository.ts';
import type { UsageRow } from './subscription.repository.ts';
import { withSubscriptionEvents } from './subscriptionEvents.ts';
import { billSubscription } from './subscriptionBilling.service.ts';
import { statusOf, timelineOf } from './subscriptionTimeline.ts';
import type { SubscriptionRow } from './subscriptionTimeline.ts';
import { usagePeriodAt } from './usagePeriods.ts';
import type { UsagePeriod } from './usagePeriods.ts';

/**
 * What the use cases that write a subscription share: holding it while it changes, the date the bill run next
 * looks at it, the usage period of today, billing at once what a change made due, and the rows of its components
 * and usage.
 */

/** The label names invoice lines only; nothing computed here depends on it. */
export function timelineFor(ctx: ServiceContext, row: SubscriptionRow): SubscriptionTimeline {
  return timelineOf(row, `Package ${row.package_id}`, ctx.account.timeZone);
}

/** Reads the subscription and holds it until the transaction ends; 404 when the account cannot see it. */
export async function lockSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<SubscriptionRow> {
  const row = await repo.lockSubscriptionRow(ctx.db, ctx.account.id, subscriptionId);
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
  work: (tctx: ServiceContext, row: SubscriptionRow, on: PlainDate) => Promise<T>,
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
  change: (tctx: ServiceContext, row: SubscriptionRow, on: PlainDate) => Promise<T>,
  refuse: SubscriptionStatus[] = ['Cancelled', 'Expired'],
  eventType = 'subscription.updated',
): Promise<T> {
  return withSubscriptionHeld(
    ctx,
    subscriptionId,
    async (tctx, row, on) => {
      const status = statusOf(row, on);
      if (refuse.includes(status)) {
        throw new ConflictError(
          `subscription_${status.toLowerCase()}`,
          status === 'Future'
            ? `Subscription ${subscriptionId} starts on ${row.start_date}; usage is recorded from then`
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
  unbilled: UsageRow[],
  on: PlainDate,
): PlainDate | null {
  const plan = planBilling(timeline, unpricedUsage(unbilled), on);
  return plan.invoices[0]?.invoiceDate ?? plan.next.nextInvDate;
}

/**
 * The date of the next invoice the subscription will get (comp_nextInvDate), which the upcoming-invoice preview
 * shows: the first with a line, past the days the bill run only records a free trial's period.
 */
export function upcomingInvoiceDate(timeline: SubscriptionTimeline, unbilled: UsageRow[]): PlainDate | null {
  return upcomingInvoiceOf(timeline, unpricedUsage(unbilled))?.invoiceDate ?? null;
}

function unpricedUsage(unbilled: UsageRow[]): UnbilledUsage[] {
  return unbilled.map((u) => ({
    usageId: u.id,
    label: '',
    unitName: '',
    periodStart: u.period_start,
    periodEnd: u.period_end,
    units: '0',
    scheme: 'unit',
    brackets: NO_CHARGE,
  }));
}

/** The billed period holding today (or the start, before it), which usage recorded today belongs to if any. */
export async function billedPeriodNow(
  ctx: ServiceContext,
  row: SubscriptionRow,
  on: PlainDate,
): Promise<UsagePeriod | null> {
  const day = row.start_date > on ? row.start_date : on;
  const billed = await repo.findBilledPeriod(ctx.db, ctx.account.id, row.id, day);
  return billed ? { start: billed.period_start, end: billed.period_end } : null;
}

/** The usage period for usage recorded today (or before the start: the first one); null once billing stopped. */
export async function currentUsagePeriod(
  ctx: ServiceContext,
  row: SubscriptionRow,
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

// Rows.

export function newComponentRows(
  ctx: ServiceContext,
  subscriptionId: number,
  components: { componentId: number; versionId: number }[],
  now: string,
): Insertable<SubscriptionComponentsTable>[] {
  return components.map((c) => ({
    account_id: ctx.account.id,
    subscription_id: subscriptionId,
    component_id: c.componentId,
    component_version_id: c.versionId,
    created_at: now,
  }));
}

/** What a usage row is set to: units (set or added, see `isSetUnits`) and a memo, each only when given. */
export interface UsageValues {
  units?: Big;
  memo?: string | null;
  isSetUnits: boolean;
}

export function newUsageRow(
  ctx: ServiceContext,
  subscriptionId: number,
  componentId: number,
  period: UsagePeriod,
  values: UsageValues,
  now: string,
): Insertable<SubscriptionUsageTable> {
  return {
    account_id: ctx.account.id,
    subscription_id: subscriptionId,
    component_id: componentId,
    period_start: period.start,
    period_end: period.end,
    num_units: canonicalDecimal(values.units ?? new Big(0)),
    memo: values.memo ?? null,
    is_set_units: values.units !== undefined && values.isSetUnits,
    updated_at: now,
  };
}
