import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError } from '../../errors.ts';
import { groupBy } from '../../core/groupBy.ts';
import type { Page } from '../../core/paging.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import { assertCustomerExists } from '../customers/index.ts';
import type { CustomerFigure } from '../customers/index.ts';
import * as repo from './subscription.repository.ts';
import type {
  StoredSubscription,
  Subscription,
  SubscriptionUsage,
  SubscriptionView,
} from './subscription.ts';
import { timelineFor, upcomingInvoiceDate } from './subscriptionEditing.ts';
import { statusOf } from './subscriptionTimeline.ts';
import { pauseScheduled } from './subscriptionPause.ts';
import { subscriptionsBillingEvents } from './meteredUsage.service.ts';
import { eventsUnbilledAtStop, finalCorrectionOn, stopDateOf } from './meteredUsage.ts';

/**
 * The next invoice's date, planned from the record (the bill run's next_inv_date can be a day it only records a
 * free trial's period). A parked record, or one the core cannot plan (which the bill run parks), shows the day
 * the bill run stopped at: it resumes from there once the record is mended.
 */
function nextInvoiceDateOf(
  ctx: ServiceContext,
  view: SubscriptionView,
  usage: SubscriptionUsage[],
  billsEvents: boolean,
): PlainDate | null {
  if (view.nextInvDate === null || view.parkedReason !== null) return view.nextInvDate;
  try {
    return upcomingInvoiceDate(
      {
        ...timelineFor(ctx, view),
        eventsUnbilledAtStop: eventsUnbilledAtStop(view, billsEvents),
        finalCorrectionOn: finalCorrectionOn(
          view,
          billsEvents,
          ctx.account.usageGraceHours,
          ctx.account.timeZone,
        ),
      },
      usage.filter((u) => u.invoiceId === null),
    );
  } catch (error) {
    if (error instanceof BillingInvariantError || error instanceof SyntaxError) return view.nextInvDate;
    throw error;
  }
}

/**
 * Subscriptions with their components and current usage: three statements for a whole page, and two more when some
 * of them stop.
 */
async function assemble(ctx: ServiceContext, views: SubscriptionView[]): Promise<Subscription[]> {
  if (views.length === 0) return [];
  const on = today(ctx);
  const ids = views.map((v) => v.id);
  // Grouped by subscription first: a bill run renders its batch of hundreds at once.
  const componentsOf = groupBy(
    await repo.listComponents(ctx.db, ctx.account.id, ids),
    (c) => c.subscriptionId,
  );
  // Only a subscription that stops may owe a last invoice of usage read from events (eventsUnbilledAtStop).
  const billingEvents = await subscriptionsBillingEvents(
    ctx,
    views.filter((v) => v.nextInvDate !== null && stopDateOf(v) !== null).map((v) => v.id),
  );
  const usageOf = groupBy(
    await repo.listUsageEndingAfterOrUnbilled(ctx.db, ctx.account.id, ids, on),
    (u) => u.subscriptionId,
  );
  return views.map((view) => {
    const usage = usageOf.get(view.id) ?? [];
    // The period shown is today's, or the first one for a subscription that has not started.
    const day = view.startDate > on ? view.startDate : on;
    const current = usage.filter((u) => u.periodStart <= day && day < u.periodEnd);
    const cancelled = view.cancelDate !== null && view.cancelDate <= on;
    return {
      ...storedSubscriptionOf(view),
      status: statusOf(view, on),
      isCancelled: cancelled,
      isExpired: view.endDate !== null && view.endDate <= on,
      isFutureChange:
        view.pendingChange !== null || (view.cancelDate !== null && !cancelled) || pauseScheduled(view, on),
      nextInvoiceDate: nextInvoiceDateOf(ctx, view, usage, billingEvents.has(view.id)),
      components: (componentsOf.get(view.id) ?? []).map((c) => {
        // After a change made now two usage periods hold today: the one the change cut short (still billed
        // as recorded) and the new one from the change day. The units shown are the latest period's, where
        // usage is recorded from now on (rows come in id order: a tie goes to the newer row).
        const row = current
          .filter((u) => u.componentId === c.componentId)
          .reduce<SubscriptionUsage | undefined>(
            (latest, u) => (latest === undefined || u.periodStart >= latest.periodStart ? u : latest),
            undefined,
          );
        return {
          componentId: c.componentId,
          componentVersionId: c.componentVersionId,
          componentVersionNo: c.versionNo,
          numUnits: row?.numUnits ?? '0',
          memo: row?.memo ?? null,
          isSetUnits: Boolean(row?.isSetUnits),
        };
      }),
    };
  });
}

/** What the answer shows of the record. */
function storedSubscriptionOf(view: SubscriptionView): StoredSubscription {
  return {
    id: view.id,
    customerId: view.customerId,
    customerName: view.customerName,
    packageId: view.packageId,
    packageName: view.packageName,
    packageVersionId: view.packageVersionId,
    packageVersionNumber: view.packageVersionNumber,
    packageRateTermId: view.packageRateTermId,
    currencyCode: view.currencyCode,
    term: view.term,
    termType: view.termType,
    chargePrice: view.chargePrice,
    startDate: view.startDate,
    endDate: view.endDate,
    trialEndDate: view.trialEndDate,
    isProRata: view.isProRata,
    firstProrataSyncDate: view.firstProrataSyncDate,
    billCycleDay: view.billCycleDay,
    numDaysBeforeToInvoice: view.numDaysBeforeToInv,
    cancelType: view.cancelType,
    cancelDate: view.cancelDate,
    cancelledAt: view.cancelledAt,
    cancelReason: view.cancelReason,
    pauseDate: view.pauseDate,
    resumeDate: view.resumeDate,
    pauseCredit: view.pauseCredit,
    resumeBillingAnchor: view.resumeBillingAnchor,
    lastInvoiceDate: view.lastInvDate,
    lastRenewDate: view.lastRenewDate,
    nextRenewDate: view.nextRenewDate,
    parkedReason: view.parkedReason,
    collectionMethod: view.collectionMethod,
    gatewayId: view.gatewayId,
    customerPaymentMethodId: view.customerPaymentMethodId,
    updatedAt: view.updatedAt,
    incompleteUntil: view.incompleteUntil,
    activatedOn: view.activatedOn,
    resumePayBy: view.resumePayBy,
    resumePaidOn: view.resumePaidOn,
  };
}

export async function getSubscription(ctx: ServiceContext, subscriptionId: number): Promise<Subscription> {
  const view = await repo.findSubscriptionView(ctx.db, ctx.account.id, subscriptionId);
  if (!view) throw new NotFoundError('Subscription', subscriptionId);
  return (await assemble(ctx, [view]))[0]!;
}

/** The account's subscriptions with these ids, as getSubscription reads them (unknown ids left out). */
export async function subscriptionsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, Subscription>> {
  const found = await assemble(ctx, await repo.findSubscriptionViews(ctx.db, ctx.account.id, ids));
  return new Map(found.map((subscription) => [subscription.id, subscription]));
}

export async function listSubscriptions(ctx: ServiceContext, page: Page): Promise<Subscription[]> {
  return assemble(ctx, await repo.listSubscriptionViews(ctx.db, ctx.account.id, page));
}

export async function listCustomerSubscriptions(
  ctx: ServiceContext,
  customerId: number,
  page: Page,
): Promise<Subscription[]> {
  await assertCustomerExists(ctx, customerId);
  return assemble(ctx, await repo.listSubscriptionViews(ctx.db, ctx.account.id, page, customerId));
}

// Counting, for the catalogue and customers.

/** Spec, Package version SubscriptionCount: subscriptions in force on each version today, future ones included. */
export function countLiveSubscriptionsByPackageVersion(
  ctx: ServiceContext,
  versionIds: number[],
): Promise<Map<number, number>> {
  return repo.countBy(ctx.db, ctx.account.id, 'package_version_id', versionIds, today(ctx));
}

/** Every subscription on each version, ended ones included: they still refer to the version. */
export function countSubscriptionsByPackageVersion(
  ctx: ServiceContext,
  versionIds: number[],
): Promise<Map<number, number>> {
  return repo.countBy(ctx.db, ctx.account.id, 'package_version_id', versionIds);
}

/**
 * Customer ActiveSubs: subscriptions not cancelled or expired on the customer's day (future and trial ones
 * included), read in the statement that reads the customer (customerReadModel).
 */
export const activeSubscriptionsFigure: CustomerFigure<number> = {
  columns: (customer) => ({ count: repo.liveSubscriptionCountOf(customer) }),
  // NOTE: count(*) is a bigint on PostgreSQL, read as text.
  read: (column) => Number(column('count')),
};

/** The customer's subscriptions not cancelled or ended today, by id. */
export function liveSubscriptionIdsOfCustomer(ctx: ServiceContext, customerId: number): Promise<number[]> {
  return repo.listLiveSubscriptionIdsOfCustomer(ctx.db, ctx.account.id, customerId, today(ctx));
}

/** Every subscription of the customer, ended ones included. */
export async function countSubscriptionsOfCustomer(ctx: ServiceContext, customerId: number): Promise<number> {
  return (await repo.countBy(ctx.db, ctx.account.id, 'customer_id', [customerId])).get(customerId) ?? 0;
}

/** Subscriptions carrying a component, or one version of it, ended ones included. */
export function countSubscriptionsWithComponent(
  ctx: ServiceContext,
  by: { componentId: number } | { componentVersionId: number },
): Promise<number> {
  return repo.countWithComponent(ctx.db, ctx.account.id, by);
}
