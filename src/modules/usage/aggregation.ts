/**
 * A billable metric's aggregate over an interval, from raw events or from hourly rollups: the same figure either way
 * (docs/design/usage.md, "Storage: summed fast, exact"). Pure. Quantities are integers of ten-thousandths, the
 * precision of NumUnits, so every sum is exact; only `weighted_sum` divides, once, at the end.
 */

import type { MetricAggregation } from '../catalogue/index.ts';

export type Aggregation = MetricAggregation;
export { METRIC_AGGREGATIONS as AGGREGATIONS } from '../catalogue/index.ts';

export const HOUR_MS = 3_600_000;

/** One event as a metric reads it: its time (ms), its value in ten-thousandths, the value `unique_count` counts. */
export interface MeteredEvent {
  id: number;
  at: number;
  value: bigint;
  unique: string;
}

/** What the events of one hour (of one customer, subscription, metric and group) add up to. */
export interface HourRollup {
  /** The hour's start, ms since the epoch, a multiple of HOUR_MS. */
  hour: number;
  count: number;
  sum: bigint;
  max: bigint | null;
  latest: { value: bigint; at: number; id: number } | null;
  /** Σ value × (at − hour), in ten-thousandths × ms: with `sum`, what `weighted_sum` needs of the hour. */
  weightedOffsets: bigint;
  uniques: ReadonlySet<string>;
}

/** An interval of time, [from, to), in ms since the epoch. */
export interface Interval {
  from: number;
  to: number;
}

export function hourOf(at: number): number {
  return Math.floor(at / HOUR_MS) * HOUR_MS;
}

const isLater = (a: { at: number; id: number }, b: { at: number; id: number }): boolean =>
  a.at > b.at || (a.at === b.at && a.id > b.id);

/** The hourly rollups of some events, one per hour they fall in, in no particular order. */
export function rollUp(events: Iterable<MeteredEvent>): HourRollup[] {
  const byHour = new Map<number, HourRollup & { uniques: Set<string> }>();
  for (const event of events) {
    const hour = hourOf(event.at);
    let rollup = byHour.get(hour);
    if (!rollup) {
      rollup = { hour, count: 0, sum: 0n, max: null, latest: null, weightedOffsets: 0n, uniques: new Set() };
      byHour.set(hour, rollup);
    }
    rollup.count += 1;
    rollup.sum += event.value;
    if (rollup.max === null || event.value > rollup.max) rollup.max = event.value;
    if (!rollup.latest || isLater(event, rollup.latest)) {
      rollup.latest = { value: event.value, at: event.at, id: event.id };
    }
    rollup.weightedOffsets += event.value * BigInt(event.at - hour);
    rollup.uniques.add(event.unique);
  }
  return [...byHour.values()];
}

/** Two rollups of the same hour as one (what an insert's upsert does to the stored row). */
export function mergeRollups(a: HourRollup, b: HourRollup): HourRollup {
  const latest = !a.latest
    ? b.latest
    : !b.latest
      ? a.latest
      : isLater(b.latest, a.latest)
        ? b.latest
        : a.latest;
  return {
    hour: a.hour,
    count: a.count + b.count,
    sum: a.sum + b.sum,
    max: a.max === null ? b.max : b.max === null ? a.max : a.max > b.max ? a.max : b.max,
    latest,
    weightedOffsets: a.weightedOffsets + b.weightedOffsets,
    uniques: new Set([...a.uniques, ...b.uniques]),
  };
}

/** Divides, rounding half away from zero, as money is rounded (docs/pricing.md). */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = (n * 2n + d) / (d * 2n);
  return negative ? -quotient : quotient;
}

/**
 * The aggregate over `interval` of the rollups of the hours it covers; the caller gives whole hours as stored and
 * its partial edge hours as rolled up from their raw events inside the interval. `carried` is, for
 * `weighted_sum`, the running total at the interval's start (every earlier event's value summed). In
 * ten-thousandths; `count` and `unique_count` in units × 10,000 as well, so that one scale prices them all.
 */
export function aggregate(
  aggregation: Aggregation,
  rollups: readonly HourRollup[],
  interval: Interval,
  carried = 0n,
): bigint {
  switch (aggregation) {
    case 'count':
      return BigInt(rollups.reduce((total, r) => total + r.count, 0)) * UNIT;
    case 'sum':
      return rollups.reduce((total, r) => total + r.sum, 0n);
    case 'max':
      return (
        rollups.reduce<bigint | null>(
          (max, r) => (r.max !== null && (max === null || r.max > max) ? r.max : max),
          null,
        ) ?? 0n
      );
    case 'unique_count':
      return BigInt(new Set(rollups.flatMap((r) => [...r.uniques])).size) * UNIT;
    case 'latest':
      return latestOf(rollups)?.value ?? 0n;
    case 'weighted_sum':
      return weightedSum(rollups, interval, carried);
  }
}

/** One unit in ten-thousandths. */
const UNIT = 10_000n;

function latestOf(rollups: readonly HourRollup[]): HourRollup['latest'] {
  let latest: HourRollup['latest'] = null;
  for (const r of rollups) if (r.latest && (!latest || isLater(r.latest, latest))) latest = r.latest;
  return latest;
}

/**
 * A running total weighted by time (Lago's `weighted_sum`): each event's value changes the total, and the result
 * is the total's average over the interval. With T₀ carried in, it is T₀ + Σ vᵢ·(to − tᵢ) / (to − from), and
 * Σ vᵢ·tᵢ = Σ over hours of (hour·Σv + Σ v·(t − hour)), which the rollups hold.
 */
function weightedSum(rollups: readonly HourRollup[], { from, to }: Interval, carried: bigint): bigint {
  const length = BigInt(to - from);
  let weighted = carried * length;
  for (const r of rollups) {
    weighted += BigInt(to) * r.sum - (BigInt(r.hour) * r.sum + r.weightedOffsets);
  }
  return divideRounded(weighted, length);
}
