import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGGREGATIONS,
  HOUR_MS,
  aggregate,
  divideRounded,
  hourOf,
  mergeRollups,
  rollUp,
} from './aggregation.ts';
import type { Aggregation, HourRollup, Interval, MeteredEvent } from './aggregation.ts';

const UNIT = 10_000n;
const at = (hours: number) => Date.UTC(2026, 10, 1) + hours * HOUR_MS;
const event = (id: number, hours: number, units: number, unique = String(id)): MeteredEvent => ({
  id,
  at: at(hours),
  value: BigInt(Math.round(units * 10_000)),
  unique,
});

describe('a metric over hand-computed events', () => {
  // A day of events: two in the first hour, one at 02:30 and two at the same instant at 07:00 (the later id wins
  // `latest`); user "a" twice.
  const events = [
    event(1, 0.25, 10, 'a'),
    event(2, 0.75, 2.5, 'b'),
    event(3, 2.5, 4, 'a'),
    event(5, 7, -1.5, 'c'),
    event(4, 7, 3, 'd'),
  ];
  const day: Interval = { from: at(0), to: at(24) };
  // In ten-thousandths of a unit.
  const cases: [Aggregation, bigint][] = [
    ['count', 50_000n],
    ['sum', 180_000n],
    ['max', 100_000n],
    ['unique_count', 40_000n],
    ['latest', -15_000n],
    // The running total: 0 for 0.25 h, 10 for 0.5 h, 12.5 for 1.75 h, 16.5 for 4.5 h, then 18 for 17 h:
    // 407.125 unit-hours over 24 hours, 16.963541…, to 16.9635.
    ['weighted_sum', 169_635n],
  ];
  it.each(cases)('%s is %s ten-thousandths', (aggregation, expected) => {
    expect(aggregate(aggregation, rollUp(events), day)).toBe(expected);
  });

  it('weighs a total carried in from before the interval for its whole length', () => {
    // 6 units held before the day, and 10 more from 12:00: 6 + 10 × 12/24 = 11.
    expect(aggregate('weighted_sum', rollUp([event(1, 12, 10)]), day, 6n * UNIT)).toBe(11n * UNIT);
  });

  it('is zero over no events, whatever the aggregation', () => {
    for (const aggregation of AGGREGATIONS) expect(aggregate(aggregation, [], day)).toBe(0n);
  });
});

describe('divideRounded', () => {
  it('rounds half away from zero, as money is', () => {
    expect([
      divideRounded(5n, 2n),
      divideRounded(-5n, 2n),
      divideRounded(4n, 3n),
      divideRounded(-5n, 3n),
    ]).toEqual([3n, -3n, 1n, -2n]);
  });
});

/** The reference: each aggregation straight from the events, the running total integrated segment by segment. */
function fromEvents(aggregation: Aggregation, events: MeteredEvent[], { from, to }: Interval): bigint {
  const inside = events.filter((e) => e.at >= from && e.at < to);
  const values = inside.map((e) => e.value);
  switch (aggregation) {
    case 'count':
      return BigInt(inside.length) * UNIT;
    case 'sum':
      return values.reduce((a, b) => a + b, 0n);
    case 'max':
      return values.length ? values.reduce((a, b) => (b > a ? b : a)) : 0n;
    case 'unique_count':
      return BigInt(new Set(inside.map((e) => e.unique)).size) * UNIT;
    case 'latest': {
      const sorted = [...inside].sort((a, b) => a.at - b.at || a.id - b.id);
      return sorted.at(-1)?.value ?? 0n;
    }
    case 'weighted_sum': {
      let total = events.filter((e) => e.at < from).reduce((a, e) => a + e.value, 0n);
      let since = from;
      let area = 0n;
      for (const e of [...inside].sort((a, b) => a.at - b.at)) {
        area += total * BigInt(e.at - since);
        total += e.value;
        since = e.at;
      }
      area += total * BigInt(to - since);
      return divideRounded(area, BigInt(to - from));
    }
  }
}

/** Rollups as storage would hold them: each batch rolled up on its own, then merged into the hour's row. */
function storedRollups(batches: MeteredEvent[][]): HourRollup[] {
  const byHour = new Map<number, HourRollup>();
  for (const batch of batches) {
    for (const rollup of rollUp(batch)) {
      const stored = byHour.get(rollup.hour);
      byHour.set(rollup.hour, stored ? mergeRollups(stored, rollup) : rollup);
    }
  }
  return [...byHour.values()];
}

const arbitraryEvents = fc
  .array(
    fc.record({
      minute: fc.integer({ min: 0, max: 72 * 60 }),
      second: fc.integer({ min: 0, max: 59_999 }),
      value: fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n }),
      unique: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    }),
    { maxLength: 60 },
  )
  .map((drawn) =>
    drawn.map(({ minute, second, value, unique }, id) => ({
      id,
      at: at(0) + minute * 60_000 + second,
      value,
      unique,
    })),
  );

describe('rollups and raw events', () => {
  it('give the same aggregate, whatever the batches, the interval and its edges', () => {
    fc.assert(
      fc.property(
        arbitraryEvents,
        fc.integer({ min: 0, max: 72 * 60 }),
        fc.integer({ min: 1, max: 72 * 60 }),
        fc.integer({ min: 1, max: 7 }),
        (events, fromMinute, lengthMinutes, batchSize) => {
          const interval = {
            from: at(0) + fromMinute * 60_000,
            to: at(0) + (fromMinute + lengthMinutes) * 60_000,
          };
          const inside = events.filter((e) => e.at >= interval.from && e.at < interval.to);
          const batches = Array.from({ length: Math.ceil(inside.length / batchSize) }, (_, i) =>
            inside.slice(i * batchSize, (i + 1) * batchSize),
          );
          const carried = events.filter((e) => e.at < interval.from).reduce((a, e) => a + e.value, 0n);
          for (const aggregation of AGGREGATIONS) {
            expect(aggregate(aggregation, storedRollups(batches), interval, carried), aggregation).toBe(
              fromEvents(aggregation, events, interval),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('put each event in the hour that holds it', () => {
    expect(hourOf(at(5) + HOUR_MS - 1)).toBe(at(5));
    expect(hourOf(at(5))).toBe(at(5));
  });
});
