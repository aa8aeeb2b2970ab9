import Big from 'big.js';
import { canonicalDecimal } from '../../core/wireDecimal.ts';
import type { Db } from '../../storage/database.ts';
import type { BillableMetric } from '../catalogue/index.ts';
import { HOUR_MS, aggregate, hourOf, rollUp } from './aggregation.ts';
import type { HourRollup, Interval } from './aggregation.ts';
import * as repo from './usageEvent.repository.ts';
import type { UsageScope } from './usageEvent.repository.ts';
import { meteredEvent } from './usageEvent.service.ts';
import { sumOfHours } from './usageTotals.repository.ts';

/** What a subscription's quantity of one metric is asked over. */
export interface UsageQuery {
  customerId: number;
  subscriptionId: number;
  metric: BillableMetric;
  /** The period [from, to), ISO 8601 instants. */
  from: string;
  to: string;
  /**
   * When this subscription claims the customer's events that name no subscription (claims.ts), ms. The parts
   * inside [from, to) count; for weighted_sum, the parts before `from` make the total carried into the period.
   */
  claimed: readonly Interval[];
}

/**
 * A metric's quantity per group ('' when the metric has no GroupBy), canonical decimal strings, over [from, to):
 * the events naming this subscription, plus the customer's events naming none inside `claimed`. Whole hours are
 * read from the rollups, partial ones from the raw events (docs/design/usage.md, "Storage: summed fast, exact").
 * A metric without GroupBy always has its '' line (0 when nothing counted); a grouped one has a line per group seen.
 */
export async function usageQuantities(
  db: Db,
  accountId: number,
  q: UsageQuery,
): Promise<Map<string, string>> {
  const period = { from: Date.parse(q.from), to: Date.parse(q.to) };
  const named: UsageScope = {
    customerId: q.customerId,
    subscriptionId: q.subscriptionId,
    metricId: q.metric.id,
  };
  const unnamed: UsageScope = { ...named, subscriptionId: null };
  const segments = [
    { scope: named, interval: period },
    ...q.claimed.flatMap((c) => intersect(c, period).map((interval) => ({ scope: unnamed, interval }))),
  ];
  const byGroup = new Map<string, HourRollup[]>();
  for (const { scope, interval } of segments) {
    for (const { group, rollup } of await segmentRollups(db, accountId, scope, interval, q.metric)) {
      appendTo(byGroup, group, rollup);
    }
  }
  const carried =
    q.metric.aggregation === 'weighted_sum' ? await carriedTotals(db, accountId, q, period) : new Map();
  const groups = new Set([...byGroup.keys(), ...carried.keys()]);
  if (q.metric.groupBy === null) groups.add('');
  const quantities = new Map<string, string>();
  for (const group of [...groups].sort()) {
    const value = aggregate(q.metric.aggregation, byGroup.get(group) ?? [], period, carried.get(group) ?? 0n);
    quantities.set(group, quantityText(value));
  }
  return quantities;
}

/** Ten-thousandths as a canonical decimal string (12500n: "1.25"). */
export function quantityText(tenThousandths: bigint): string {
  return canonicalDecimal(new Big(tenThousandths.toString()).div(10_000));
}

function intersect(a: Interval, b: Interval): Interval[] {
  const from = Math.max(a.from, b.from);
  const to = Math.min(a.to, b.to);
  return from < to ? [{ from, to }] : [];
}

/**
 * The rollups of one scope over [from, to), per group: the stored ones of the whole hours inside it, and the edge
 * hours' rolled up from their raw events inside it.
 */
async function segmentRollups(
  db: Db,
  accountId: number,
  scope: UsageScope,
  { from, to }: Interval,
  metric: BillableMetric,
): Promise<{ group: string; rollup: HourRollup }[]> {
  const firstWhole = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const endWhole = hourOf(to);
  const out: { group: string; rollup: HourRollup }[] = [];
  let rawRanges: Interval[] = [{ from, to }];
  if (firstWhole < endWhole) {
    out.push(...(await repo.rollupsOfHours(db, accountId, scope, firstWhole, endWhole)));
    if (metric.aggregation === 'unique_count') {
      out.push(...uniqueRollups(await repo.uniqueValuesOfHours(db, accountId, scope, firstWhole, endWhole)));
    }
    rawRanges = [
      { from, to: firstWhole },
      { from: endWhole, to },
    ].filter((r) => r.from < r.to);
  }
  const raw = await repo.countedEventsIn(db, accountId, scope, rawRanges);
  const eventsByGroup = new Map<string, ReturnType<typeof meteredEvent>[]>();
  for (const { group, event } of raw) {
    const metered = meteredEvent(metric.aggregation, event.id, event.at, event.value, event.unique);
    appendTo(eventsByGroup, group, metered);
  }
  for (const [group, events] of eventsByGroup)
    out.push(...rollUp(events).map((rollup) => ({ group, rollup })));
  return out;
}

/** The distinct stored values as one rollup per group that holds only them (unique_count reads nothing else). */
function uniqueRollups(
  values: readonly { group: string; value: string }[],
): { group: string; rollup: HourRollup }[] {
  const byGroup = new Map<string, Set<string>>();
  for (const { group, value } of values) byGroup.set(group, (byGroup.get(group) ?? new Set()).add(value));
  return [...byGroup].map(([group, uniques]) => ({
    group,
    rollup: { hour: 0, count: 0, sum: 0n, max: null, latest: null, weightedOffsets: 0n, uniques },
  }));
}

/**
 * weighted_sum's running total at the period's start, per group: every earlier event naming the subscription, and
 * the customer's unnamed ones inside the claimed parts before the period.
 */
async function carriedTotals(
  db: Db,
  accountId: number,
  q: UsageQuery,
  period: Interval,
): Promise<Map<string, bigint>> {
  const named: UsageScope = {
    customerId: q.customerId,
    subscriptionId: q.subscriptionId,
    metricId: q.metric.id,
  };
  const before = { from: 0, to: period.from };
  const segments = [
    { scope: named, interval: before },
    ...q.claimed.flatMap((c) =>
      intersect(c, before).map((interval) => ({ scope: { ...named, subscriptionId: null }, interval })),
    ),
  ];
  const totals = new Map<string, bigint>();
  const add = (group: string, sum: bigint) => totals.set(group, (totals.get(group) ?? 0n) + sum);
  for (const { scope, interval } of segments) {
    // The whole hours summed by the database (a year of history is one row per group, not 8,760 rollups read
    // here), the partial edge hours from their raw events as a period's are.
    const firstWhole = Math.max(0, Math.ceil(interval.from / HOUR_MS) * HOUR_MS);
    const endWhole = hourOf(interval.to);
    const edges = firstWhole < endWhole ? partialEdges(interval, firstWhole, endWhole) : [interval];
    if (firstWhole < endWhole) {
      for (const { group, sum } of await sumOfHours(db, accountId, scope, firstWhole, endWhole))
        add(group, sum);
    }
    for (const edge of edges) {
      for (const { group, rollup } of await segmentRollups(db, accountId, scope, edge, q.metric)) {
        add(group, rollup.sum);
      }
    }
  }
  return totals;
}

/** The parts of `interval` outside its whole hours [firstWhole, endWhole). */
function partialEdges(interval: Interval, firstWhole: number, endWhole: number): Interval[] {
  return [
    { from: interval.from, to: firstWhole },
    { from: endWhole, to: interval.to },
  ].filter((r) => r.from < r.to);
}

/** Adds `item` to its group's list in place (an edge hour may hold hundreds of thousands of events). */
function appendTo<T>(byGroup: Map<string, T[]>, group: string, item: T): void {
  const list = byGroup.get(group);
  if (list === undefined) byGroup.set(group, [item]);
  else list.push(item);
}
