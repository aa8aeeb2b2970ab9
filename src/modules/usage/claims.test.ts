import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimedIntervals } from './claims.ts';
import type { MeteringSubscription } from './claims.ts';

const all = { from: 0, to: 1_000 };

describe('which subscription an unnamed event counts for', () => {
  const first: MeteringSubscription = { id: 1, metricCodes: ['api'], covers: [{ from: 100, to: 400 }] };
  const second: MeteringSubscription = {
    id: 2,
    metricCodes: ['api', 'storage'],
    covers: [{ from: 300, to: 600 }],
  };

  it('gives an overlap to the subscription created first', () => {
    expect(claimedIntervals(1, 'api', all, [first, second])).toEqual([{ from: 100, to: 400 }]);
    expect(claimedIntervals(2, 'api', all, [first, second])).toEqual([{ from: 400, to: 600 }]);
  });

  it('lets a metric the earlier subscription does not bill go to the later one whole', () => {
    expect(claimedIntervals(2, 'storage', all, [first, second])).toEqual([{ from: 300, to: 600 }]);
    expect(claimedIntervals(1, 'storage', all, [first, second])).toEqual([]);
  });

  it('keeps to the period asked about', () => {
    expect(claimedIntervals(2, 'api', { from: 500, to: 550 }, [first, second])).toEqual([
      { from: 500, to: 550 },
    ]);
  });
});

const arbitrarySubscriptions = fc
  .array(
    fc.record({
      metrics: fc.subarray(['api', 'storage']),
      covers: fc.array(fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 30 })), {
        maxLength: 3,
      }),
    }),
    { maxLength: 5 },
  )
  .map((drawn) =>
    drawn.map(({ metrics, covers }, i) => {
      // Disjoint periods, as a subscription's are.
      const sorted = [...covers].sort((a, b) => a[0] - b[0]);
      let end = 0;
      const intervals = [];
      for (const [start, length] of sorted) {
        const from = Math.max(start, end);
        intervals.push({ from, to: from + length });
        end = from + length;
      }
      return { id: i + 1, metricCodes: metrics, covers: intervals };
    }),
  );

describe('claims over any subscriptions', () => {
  it('give each covered instant to exactly one subscription, and an uncovered one to none', () => {
    fc.assert(
      fc.property(arbitrarySubscriptions, fc.constantFrom('api', 'storage'), (subscriptions, metric) => {
        for (let instant = 0; instant < 200; instant += 1) {
          const claimers = subscriptions.filter((s) =>
            claimedIntervals(s.id, metric, all, subscriptions).some(
              (i) => i.from <= instant && instant < i.to,
            ),
          );
          const covering = subscriptions.filter(
            (s) =>
              s.metricCodes.includes(metric) && s.covers.some((i) => i.from <= instant && instant < i.to),
          );
          expect(claimers.map((s) => s.id)).toEqual(covering.length ? [covering[0]!.id] : []);
        }
      }),
      { numRuns: 200 },
    );
  });
});
