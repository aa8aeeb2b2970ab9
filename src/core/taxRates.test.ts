import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apportionByDays, percOn, rateChangesWithin, splitPeriodAt } from './taxRates.ts';
import type { TaxRateTimeline } from './taxRates.ts';

// South Africa's VAT: 15 % from before any dated rate, 15.5 % scheduled from 1 May 2025.
const VAT: TaxRateTimeline = { openingPerc: '0.15', rates: [{ perc: '0.155', effectiveFrom: '2025-05-01' }] };

describe('percOn', () => {
  it('gives the opening rate before the first dated rate, and a dated rate from its own date on', () => {
    expect(percOn(VAT, '2025-04-30')).toBe('0.15');
    expect(percOn(VAT, '2025-05-01')).toBe('0.155');
    expect(percOn(VAT, '2030-01-01')).toBe('0.155');
  });

  it('takes the latest rate in force whatever order the rates come in', () => {
    const timeline: TaxRateTimeline = {
      openingPerc: '0.14',
      rates: [
        { perc: '0.16', effectiveFrom: '2026-04-01' },
        { perc: '0.15', effectiveFrom: '2018-04-01' },
      ],
    };
    expect(percOn(timeline, '2018-03-31')).toBe('0.14');
    expect(percOn(timeline, '2025-12-31')).toBe('0.15');
    expect(percOn(timeline, '2026-04-01')).toBe('0.16');
  });
});

describe('rateChangesWithin', () => {
  it('lists the change dates strictly inside the period, each once and in order', () => {
    const other: TaxRateTimeline = {
      openingPerc: '0.02',
      rates: [
        { perc: '0.03', effectiveFrom: '2025-06-15' },
        { perc: '0.04', effectiveFrom: '2025-05-01' },
      ],
    };
    expect(rateChangesWithin({ start: '2025-04-01', end: '2025-07-01' }, [VAT, other])).toEqual([
      '2025-05-01',
      '2025-06-15',
    ]);
  });

  it('leaves out a change on the first day (the whole period is at the new rate) or on the end', () => {
    expect(rateChangesWithin({ start: '2025-05-01', end: '2025-06-01' }, [VAT])).toEqual([]);
    expect(rateChangesWithin({ start: '2025-04-01', end: '2025-05-01' }, [VAT])).toEqual([]);
  });
});

describe('splitPeriodAt', () => {
  it('cuts a quarter crossing 1 May into April (30 days) and May to June (61 days)', () => {
    expect(splitPeriodAt({ start: '2025-04-01', end: '2025-07-01' }, ['2025-05-01'])).toEqual([
      { start: '2025-04-01', end: '2025-05-01', days: 30 },
      { start: '2025-05-01', end: '2025-07-01', days: 61 },
    ]);
  });

  it('keeps a period no change falls inside whole, and a one-day supply as one part', () => {
    expect(splitPeriodAt({ start: '2025-05-01', end: '2025-06-01' }, ['2025-05-01'])).toEqual([
      { start: '2025-05-01', end: '2025-06-01', days: 31 },
    ]);
    expect(splitPeriodAt({ start: '2025-05-01', end: '2025-05-01' }, ['2025-05-01'])).toEqual([
      { start: '2025-05-01', end: '2025-05-01', days: 0 },
    ]);
  });
});

describe('apportionByDays', () => {
  it('shares 300.00 of a quarter as 30/91 and the rest: 98.90 and 201.10', () => {
    const parts = splitPeriodAt({ start: '2025-04-01', end: '2025-07-01' }, ['2025-05-01']);
    // 30000 × 30 / 91 = 9890.1… → 9890; the last part takes 30000 − 9890 = 20110.
    expect(apportionByDays(30000, parts)).toEqual([9890, 20110]);
  });

  it('rounds half away from zero and gives a credit (negative) the same shares, negated', () => {
    const parts = [
      { start: '2025-04-29', end: '2025-05-01', days: 2 },
      { start: '2025-05-01', end: '2025-05-03', days: 2 },
    ];
    expect(apportionByDays(5, parts)).toEqual([3, 2]);
    expect(apportionByDays(-5, parts)).toEqual([-3, -2]);
  });

  it('always adds up to the amount exactly, each share within one unit of its exact part', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 5 }),
        (amount, days) => {
          const parts = days.map((d) => ({ start: '2025-01-01', end: '2025-01-01', days: d }));
          const shares = apportionByDays(amount, parts);
          const total = days.reduce((a, b) => a + b, 0);
          expect(shares.reduce((a, b) => a + b, 0)).toBe(amount);
          shares.slice(0, -1).forEach((share, i) => {
            expect(Math.abs(share - (amount * days[i]!) / total)).toBeLessThanOrEqual(0.5 + 1e-6);
          });
        },
      ),
    );
  });
});
