import { ConflictError, NotFoundError } from '../../errors.ts';
import { canonicalDecimal } from '../../core/wireDecimal.ts';
import Big from 'big.js';
import type { ServiceContext } from '../../context.ts';
import { decimalToMinor } from '../../core/money.ts';
import { addDays, maxDate, startOfDate } from '../../core/calendar.ts';
import { usageFrom } from './subscriptionActivation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { metricsByIds, usagePricing } from '../catalogue/index.ts';
import type { BillableMetric, UsagePricing } from '../catalogue/index.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import { claimedIntervals, usageQuantities } from '../usage/index.ts';
import type { MeteringSubscription } from '../usage/index.ts';
import {
  correctionsOf,
  finalCorrectionOn,
  mayHaveLateEvents,
  meteringSubscription,
  periodInterval,
  periodsToMeter,
  restsAfterUndoneStops,
  stopDateOf,
} from './meteredUsage.ts';
import type { UsagePeriod } from './meteredUsage.ts';
import * as repo from './meteredUsage.repository.ts';
import { listProgressiveUsage } from './progressiveBilling.repository.ts';
import type { ProgressiveUsage } from './progressiveBilling.repository.ts';
import { findSubscriptionRecord } from './subscription.repository.ts';
import type { BilledMeteredUsage, MeteringRecord } from './meteredUsage.repository.ts';
import { planBilling } from './subscriptionBilling.ts';
import { chargeUsage } from './usageCharge.ts';
import type { SubscriptionTimeline, UnbilledUsage } from './subscriptionBilling.ts';
import type { SubscriptionRecord } from './subscription.ts';

/**
 * Usage read from events for billing and previews (docs/usage.md, "Billing usage"). The bill run, the
 * upcoming-invoice preview and a change's preview all read it here, the same way: for each usage component linked
 * to a metric, each usage period over by the plan's date and not billed yet is read from the events, one usage per
 * group; and each period billed before that late events could still reach is read again, its difference a
 * correction. The plan (planBilling) then takes them like recorded usage; the caller stores what was billed.
 */

/** A usage component of a subscription linked to a metric, with its price. */
interface MeteredComponent {
  subscriptionId: number;
  componentId: number;
  metric: BillableMetric;
  price: UsagePricing;
}

/** What a subscription is billed from events, and what to store once its invoice is made. */
export interface MeteredInputs {
  bySubscription: Map<number, UnbilledUsage[]>;
  /** By the (negative) usageId the plan passes through: the row recording what that line billed. */
  toStore: Map<number, Omit<BilledMeteredUsage, 'invoiceId'>>;
  /** A subscription whose metered usage cannot be priced, and why (the bill run parks it). */
  problems: Map<number, string>;
  /** The subscriptions planned that have a usage component linked to a metric. */
  billingEvents: Set<number>;
}

/** What each subscription is planned with, and the date its metered usage is read through. */
export interface MeteringPlan {
  row: SubscriptionRecord;
  timeline: SubscriptionTimeline;
  /** Its recorded (per-period) usage: planned with the metered usage, as the bill run plans. */
  recorded: readonly UnbilledUsage[];
  through: PlainDate;
}

/** How long after its time an event is still taken (the account's UsageGraceHours, "Grace and late events"). */
function graceHoursOf(ctx: ServiceContext): number {
  return ctx.account.usageGraceHours;
}

/** The day of its final correction invoice (finalCorrectionOn), with the account's grace window and zone. */
export function finalCorrectionOfRecord(
  ctx: ServiceContext,
  row: Parameters<typeof finalCorrectionOn>[0],
  billsEvents: boolean,
): PlainDate | null {
  return finalCorrectionOn(row, billsEvents, ctx.account.usageGraceHours, ctx.account.timeZone);
}

/** The metered usage of the subscriptions planned, read from the events. */
export async function meteredUsageOf(
  ctx: ServiceContext,
  plans: readonly MeteringPlan[],
): Promise<MeteredInputs> {
  const result: MeteredInputs = {
    bySubscription: new Map(),
    toStore: new Map(),
    problems: new Map(),
    billingEvents: new Set(),
  };
  // Most bills have no metered component: two reads tell, before the customers' other subscriptions are read.
  if (plans.length === 0 || !(await hasMeteredComponents(ctx, ...plans.map((p) => p.row.id)))) return result;
  const metering = await meteringOf(
    ctx,
    plans.map((p) => p.row.customerId),
  );
  const meteredPlans = plans.filter((p) => metering.components.some((c) => c.subscriptionId === p.row.id));
  if (meteredPlans.length === 0) return result;
  for (const plan of meteredPlans) result.billingEvents.add(plan.row.id);
  const since = earliestRead(meteredPlans, graceHoursOf(ctx));
  const ids = meteredPlans.map((p) => p.row.id);
  const [recordedPeriods, billed, progressive] = [
    await repo.listPeriodsEndingFrom(ctx.db, ctx.account.id, ids, since),
    await repo.listBilledMeteredUsage(ctx.db, ctx.account.id, ids, since),
    await listProgressiveUsage(ctx.db, ctx.account.id, ids, since),
  ];
  const next = { usageId: -1 };
  for (const plan of meteredPlans) {
    const usage: UnbilledUsage[] = [];
    for (const component of metering.components.filter((c) => c.subscriptionId === plan.row.id)) {
      const priced = priceOf(ctx, component, plan.row.currencyCode);
      if (typeof priced === 'string') {
        result.problems.set(plan.row.id, priced);
        continue;
      }
      const reader = quantityReader(ctx, plan.row, component.metric, metering.claimants(plan.row.customerId));
      const own = billed.filter(
        (b) => b.subscriptionId === plan.row.id && b.componentId === component.componentId,
      );
      const periods = [
        ...recordedPeriods.filter((p) => p.subscriptionId === plan.row.id),
        ...plannedPeriods(plan),
      ];
      const read = await readPeriods(plan, periods, own, reader);
      const corrections = await readCorrections(ctx, plan, own, reader);
      for (const item of [...read, ...corrections]) {
        const usageId = next.usageId--;
        const metered = { metricCode: component.metric.code, group: item.store.group };
        const progressiveMinor = progressivelyBilled(progressive, plan.row.id, component.componentId, item);
        usage.push({
          ...priced,
          ...item.usage,
          metered,
          usageId,
          ...(progressiveMinor ? { progressiveMinor } : {}),
        });
        result.toStore.set(usageId, {
          ...item.store,
          componentId: component.componentId,
          metricId: component.metric.id,
        });
      }
    }
    result.bySubscription.set(plan.row.id, usage);
  }
  return result;
}

/**
 * What progressive invoices billed of a period's group, after their coupons, when this is the period's first
 * billing (docs/usage.md, "Progressive billing"): its invoice deducts it. A correction of late events is priced against what was billed
 * in all, so it deducts nothing.
 */
function progressivelyBilled(
  progressive: readonly ProgressiveUsage[],
  subscriptionId: number,
  componentId: number,
  item: ReadUsage,
): number {
  if (item.store.correctionNo !== 0) return 0;
  return progressive
    .filter(
      (p) =>
        p.subscriptionId === subscriptionId &&
        p.componentId === componentId &&
        p.group === item.store.group &&
        p.periodStart === item.store.periodStart,
    )
    .reduce((sum, p) => sum + p.amountMinor - p.discountMinor, 0);
}

/** The earliest period end any plan reads again: its last invoice date less the grace window, a day to spare. */
function earliestRead(plans: readonly MeteringPlan[], graceHours: number): PlainDate {
  const dates = plans.map((p) => p.row.lastInvDate);
  if (dates.some((d) => d === null)) return '0001-01-01';
  const earliest = (dates as PlainDate[]).sort()[0]!;
  return addDays(earliest, -(Math.ceil(graceHours / 24) + 1));
}

/** The periods the plan bills as of its date (those a catching-up plan makes are not recorded yet). */
function plannedPeriods(plan: MeteringPlan): UsagePeriod[] {
  try {
    return planBilling(plan.timeline, plan.recorded, plan.through).invoices.flatMap((invoice) =>
      invoice.period ? [{ start: invoice.period.start, end: invoice.period.end }] : [],
    );
  } catch (error) {
    // A record the core cannot plan is parked by the bill run (or refused by a preview) when it is planned.
    if (error instanceof BillingInvariantError) return [];
    throw error;
  }
}

type QuantityReader = (period: UsagePeriod) => Promise<Map<string, string>>;

/** One metered usage to plan, and the row that records it once billed. */
interface ReadUsage {
  usage: Pick<UnbilledUsage, 'periodStart' | 'periodEnd' | 'units' | 'billedUnits'>;
  store: Omit<BilledMeteredUsage, 'invoiceId' | 'componentId' | 'metricId'>;
}

/** The periods over by the plan's date and not billed yet: one usage per group read from the events. */
async function readPeriods(
  plan: MeteringPlan,
  periods: readonly UsagePeriod[],
  billed: readonly BilledMeteredUsage[],
  reader: QuantityReader,
): Promise<ReadUsage[]> {
  // Only periods the last bill could not have read: those ending on or after its date (a change may cut one there).
  const open = periods.filter((p) => plan.row.lastInvDate === null || p.end >= plan.row.lastInvDate);
  const billedEnds = new Map<PlainDate, PlainDate>();
  for (const b of billed.filter((row) => row.correctionNo === 0)) {
    billedEnds.set(b.periodStart, maxDate(b.periodEnd, billedEnds.get(b.periodStart) ?? b.periodEnd));
  }
  const rests = restsAfterUndoneStops(open, billedEnds);
  // A period billed in pieces (its rest after an undone stop): its first piece may be too old to be listed.
  const starts = [...billedEnds.keys()];
  const pieced = open
    .filter((p) => starts.some((start) => start > p.start && start < p.end))
    .map((p) => p.start);
  const billedStarts = new Set([...starts, ...pieced]);
  const toRead = periodsToMeter([...open, ...rests], stopDateOf(plan.row), plan.through, billedStarts);
  const read: ReadUsage[] = [];
  for (const period of toRead) {
    for (const [group, quantity] of quantitiesOrNothing(await reader(period))) {
      read.push(readUsage(plan, period, group, quantity, 0));
    }
  }
  return read;
}

/**
 * The billed periods late events could still have reached since the last bill, read again: each group whose
 * quantity changed is corrected on the next invoice (docs/design/usage.md, "Late events and grace").
 */
async function readCorrections(
  ctx: ServiceContext,
  plan: MeteringPlan,
  billed: readonly BilledMeteredUsage[],
  reader: QuantityReader,
): Promise<ReadUsage[]> {
  const periods = new Map<PlainDate, UsagePeriod>();
  for (const b of billed) periods.set(b.periodStart, { start: b.periodStart, end: b.periodEnd });
  const read: ReadUsage[] = [];
  for (const period of periods.values()) {
    if (!mayHaveLateEvents(period, plan.row.lastInvDate, graceHoursOf(ctx), ctx.account.timeZone)) continue;
    const ofPeriod = billed.filter((b) => b.periodStart === period.start);
    const sums = new Map<string, string>();
    for (const b of ofPeriod) sums.set(b.group, new Big(sums.get(b.group) ?? '0').plus(b.quantity).toFixed());
    const correctionNo = Math.max(...ofPeriod.map((b) => b.correctionNo)) + 1;
    for (const correction of correctionsOf(sums, await reader(period))) {
      const usage = readUsage(plan, period, correction.group, correction.added, correctionNo);
      read.push({ ...usage, usage: { ...usage.usage, billedUnits: correction.billed } });
    }
  }
  return read;
}

function readUsage(
  plan: MeteringPlan,
  period: UsagePeriod,
  group: string,
  quantity: string,
  correctionNo: number,
): ReadUsage {
  return {
    usage: { periodStart: period.start, periodEnd: period.end, units: quantity },
    store: {
      subscriptionId: plan.row.id,
      group,
      periodStart: period.start,
      periodEnd: period.end,
      correctionNo,
      quantity,
    },
  };
}

/** A period without events is still billed, as 0 of the component (its line shows it, a flat fee included). */
function quantitiesOrNothing(quantities: ReadonlyMap<string, string>): [string, string][] {
  // Lines in the order of their group, whatever order the events came in.
  return quantities.size > 0 ? [...quantities].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [['', '0']];
}

/**
 * The metric's quantity per group over a period of the subscription: its own events, and those of the customer's
 * that name no subscription while it claims them. A negative quantity (a sum of negative values) is billed as 0.
 */
function quantityReader(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  metric: BillableMetric,
  claimants: readonly MeteringSubscription[],
): QuantityReader {
  return async (period) => {
    const interval = periodInterval(period, ctx.account.timeZone);
    // From the beginning: weighted_sum carries the total of the claimed events before the period into it.
    const claimed = claimedIntervals(row.id, metric.code, { from: 0, to: interval.to }, claimants);
    const quantities = await usageQuantities(ctx.db, ctx.account.id, {
      customerId: row.customerId,
      subscriptionId: row.id,
      metric,
      // Events before a subscription that started when paid was paid are stored but never billed.
      from: startOfDate(usageFrom(row, period.start), ctx.account.timeZone),
      to: startOfDate(period.end, ctx.account.timeZone),
      claimed,
    });
    return new Map([...quantities].map(([group, q]) => [group, new Big(q).lt(0) ? '0' : q]));
  };
}

/** The price of a metered component in the subscription's currency, or why it has none. */
function priceOf(
  ctx: ServiceContext,
  component: MeteredComponent,
  currency: string,
): Omit<UnbilledUsage, 'usageId' | 'periodStart' | 'periodEnd' | 'units'> | string {
  const { price, metric } = component;
  const brackets = price.bracketsByCurrency.get(currency);
  if (!brackets) return `component version ${price.componentVersionId} has no price in ${currency}`;
  return {
    componentId: price.componentId,
    label: price.name,
    unitName: price.unitName,
    scheme: price.scheme,
    brackets,
    pack: price.packByCurrency.get(currency) ?? null,
    isTaxInclusive: price.taxInclusiveByCurrency.get(currency) ?? ctx.account.isTaxInclusive,
    metered: { metricCode: metric.code, group: '' },
  };
}

/**
 * The metered components of the customers' subscriptions, and for each customer the subscriptions that claim its
 * events (claims.ts): every subscription with a component linked to a metric, oldest first.
 */
async function meteringOf(ctx: ServiceContext, customerIds: readonly number[]) {
  const subscriptions = await repo.listCustomersSubscriptions(ctx.db, ctx.account.id, customerIds);
  const links = await repo.listSubscriptionComponents(
    ctx.db,
    ctx.account.id,
    subscriptions.map((s) => s.id),
  );
  const pricing = await usagePricing(
    ctx,
    links.map((l) => l.componentVersionId),
  );
  const metricIds = [...pricing.values()].flatMap((p) => (p.metricId === null ? [] : [p.metricId]));
  const metrics = await metricsByIds(ctx.db, ctx.account.id, metricIds);
  const components: MeteredComponent[] = links.flatMap((link) => {
    const price = pricing.get(link.componentVersionId);
    const metric = price?.metricId == null ? undefined : metrics.get(price.metricId);
    return price && metric
      ? [{ subscriptionId: link.subscriptionId, componentId: link.componentId, metric, price }]
      : [];
  });
  const claimantsOf = (customerId: number): MeteringSubscription[] =>
    subscriptions
      .filter((s) => s.customerId === customerId)
      .map((s: MeteringRecord) =>
        meteringSubscription(
          { id: s.id, startDate: s.startDate, stopAt: stopDateOf(s) },
          components.filter((c) => c.subscriptionId === s.id).map((c) => c.metric.code),
          ctx.account.timeZone,
        ),
      );
  return { components, claimants: claimantsOf };
}

/** Which of the subscriptions have a usage component linked to a metric. */
export async function subscriptionsBillingEvents(
  ctx: ServiceContext,
  subscriptionIds: readonly number[],
): Promise<Set<number>> {
  if (subscriptionIds.length === 0) return new Set();
  const links = await repo.listSubscriptionComponents(ctx.db, ctx.account.id, [...subscriptionIds]);
  const pricing = await usagePricing(
    ctx,
    links.map((l) => l.componentVersionId),
  );
  return new Set(
    links.filter((l) => pricing.get(l.componentVersionId)?.metricId != null).map((l) => l.subscriptionId),
  );
}

/** Whether any of the subscriptions has a usage component linked to a metric. */
export async function hasMeteredComponents(
  ctx: ServiceContext,
  ...subscriptionIds: number[]
): Promise<boolean> {
  const links = await repo.listSubscriptionComponents(ctx.db, ctx.account.id, subscriptionIds);
  const pricing = await usagePricing(
    ctx,
    links.map((l) => l.componentVersionId),
  );
  return [...pricing.values()].some((p) => p.metricId !== null);
}

/**
 * What the subscription uses of one metric in `period`, over every group, counted exactly as the bill run counts it
 * when it bills the period (docs/usage.md, "Entitlements"): the period cut where billing stops, the events naming
 * the subscription, and the customer's events naming none while the subscription claims them (claims.ts), negative
 * groups as 0. A limit may govern a metric its subscription does not bill: it then claims the customer's unnamed
 * events as if it billed it, after every earlier subscription that does.
 */
export async function usedOfMetric(
  ctx: ServiceContext,
  subscriptionId: number,
  metric: BillableMetric,
  period: UsagePeriod,
): Promise<string> {
  const row = await findSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId);
  if (!row) throw new NotFoundError('Subscription', subscriptionId);
  const stop = stopDateOf(row);
  const billedPeriod = stop !== null && stop < period.end ? { start: period.start, end: stop } : period;
  if (billedPeriod.end <= billedPeriod.start) return '0';
  const metering = await meteringOf(ctx, [row.customerId]);
  const claimants = metering
    .claimants(row.customerId)
    .map((s) =>
      s.id === row.id && !s.metricCodes.includes(metric.code)
        ? { ...s, metricCodes: [...s.metricCodes, metric.code] }
        : s,
    );
  const quantities = await quantityReader(ctx, row, metric, claimants)(billedPeriod);
  return canonicalDecimal([...quantities.values()].reduce((sum, q) => sum.plus(q), new Big(0)));
}

/** A subscription's usage so far this period, per metric and group, with its price so far. */
export interface CurrentUsage {
  currencyCode: string;
  /** The usage period holding today, cut where billing stops; null when billing has stopped. */
  period: UsagePeriod | null;
  lines: {
    componentId: number;
    metricCode: string;
    group: string;
    /** Exact decimal. */
    quantity: string;
    /** What the quantity costs now, rounded to the currency's minor unit as its invoice line will be. */
    amountMinor: number;
  }[];
}

/**
 * The quantity so far of each metered component in the usage period holding today, read as the bill run will read
 * it when the period is over (docs/usage.md, "Reading usage"), and its price so far.
 */
export async function currentMeteredUsage(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  period: UsagePeriod | null,
): Promise<CurrentUsage> {
  const result: CurrentUsage = { currencyCode: row.currencyCode, period, lines: [] };
  if (period === null) return result;
  const metering = await meteringOf(ctx, [row.customerId]);
  for (const component of metering.components.filter((c) => c.subscriptionId === row.id)) {
    const priced = priceOf(ctx, component, row.currencyCode);
    const reader = quantityReader(ctx, row, component.metric, metering.claimants(row.customerId));
    for (const [group, quantity] of quantitiesOrNothing(await reader(period))) {
      const amountMinor =
        typeof priced === 'string' ? 0 : amountSoFar(chargeUsage(priced, quantity).amount, row.currencyCode);
      result.lines.push({
        componentId: component.componentId,
        metricCode: component.metric.code,
        group,
        quantity,
        amountMinor,
      });
    }
  }
  return result;
}

/** A metered component's usage so far in a period, priced, with what its invoice line names. */
export interface PricedUsageSoFar {
  componentId: number;
  metricCode: string;
  group: string;
  label: string;
  unitName: string;
  isTaxInclusive: boolean;
  /** Exact decimal. */
  quantity: string;
  /** The whole quantity's price, rounded to the minor unit as its invoice line will be. */
  amountMinor: number;
}

/**
 * The usage so far of each metered component in the period, read and priced as the bill run will read and price it
 * when the period is over (docs/usage.md, "Progressive billing"); a component without a price in the currency is a
 * BillingInvariantError, as the bill run would park the subscription.
 */
export async function pricedUsageSoFar(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  period: UsagePeriod,
): Promise<PricedUsageSoFar[]> {
  const metering = await meteringOf(ctx, [row.customerId]);
  const result: PricedUsageSoFar[] = [];
  for (const component of metering.components.filter((c) => c.subscriptionId === row.id)) {
    const priced = priceOf(ctx, component, row.currencyCode);
    if (typeof priced === 'string') throw new BillingInvariantError(priced);
    const reader = quantityReader(ctx, row, component.metric, metering.claimants(row.customerId));
    for (const [group, quantity] of quantitiesOrNothing(await reader(period))) {
      result.push({
        componentId: component.componentId,
        metricCode: component.metric.code,
        group,
        label: priced.label,
        unitName: priced.unitName,
        isTaxInclusive: priced.isTaxInclusive ?? false,
        quantity,
        amountMinor: amountSoFar(chargeUsage(priced, quantity).amount, row.currencyCode),
      });
    }
  }
  return result;
}

/**
 * Usage so far priced in minor units; a 409 when it is past what an amount may be (modules/invoicing/invoiceMath.ts),
 * as the bill run would park the subscription rather than issue it.
 */
function amountSoFar(amount: string, currencyCode: string): number {
  try {
    return decimalToMinor(amount, currencyCode);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ConflictError(
      'usage_amount_too_large',
      `The usage so far costs ${amount} ${currencyCode}, more than an invoice amount may be: the bill run will hold ` +
        'this subscription until its usage is corrected',
    );
  }
}

/** A subscription as a usage alert reads it (docs/usage.md, "Alerts"): its customer, currency and metered metrics. */
export interface MeteredSubscription {
  id: number;
  customerId: number;
  currencyCode: string;
  /** The metrics its usage components are linked to, each once. */
  metrics: BillableMetric[];
}

/** The subscription's metered metrics; undefined when the account has no such subscription. */
export async function findMeteredSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<MeteredSubscription | undefined> {
  const row = await findSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId);
  if (!row) return undefined;
  const metering = await meteringOf(ctx, [row.customerId]);
  const metrics = new Map<number, BillableMetric>();
  for (const c of metering.components) if (c.subscriptionId === row.id) metrics.set(c.metric.id, c.metric);
  return {
    id: row.id,
    customerId: row.customerId,
    currencyCode: row.currencyCode,
    metrics: [...metrics.values()],
  };
}
