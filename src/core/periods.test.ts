import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { addDays } from './calendar.ts';
import { boundary, isBoundary, isTermUnit, isValidTerm, periodIndexAt } from './periods.ts';
import type { Term } from './periods.ts';

const months = (count: number): Term => ({ count, unit: 'months' });
const days = (count: number): Term => ({ count, unit: 'days' });
const MONTHLY = months(1);

describe('boundary', () => {
  it.each([
    // monthly on the 31st: short months clamp to their last day, then the 31st comes back
    ['2024-01-31', MONTHLY, 1, '2024-02-29'], // leap year
    ['2024-01-31', MONTHLY, 2, '2024-03-31'], // back to the 31st, not Mar 29
    ['2024-01-31', MONTHLY, 3, '2024-04-30'],
    ['2024-01-31', MONTHLY, 4, '2024-05-31'],
    ['2025-01-31', MONTHLY, 1, '2025-02-28'], // common year
    ['2025-01-31', MONTHLY, 2, '2025-03-31'],
    ['2025-01-31', MONTHLY, 11, '2025-12-31'],
    ['2025-01-31', MONTHLY, 13, '2026-02-28'],
    // monthly on the 30th
    ['2024-01-30', MONTHLY, 1, '2024-02-29'],
    ['2024-01-30', MONTHLY, 2, '2024-03-30'],
    ['2025-01-30', MONTHLY, 1, '2025-02-28'],
    ['2025-01-30', MONTHLY, 2, '2025-03-30'],
    // monthly on the 29th: fits February only in a leap year
    ['2024-01-29', MONTHLY, 1, '2024-02-29'],
    ['2024-01-29', MONTHLY, 2, '2024-03-29'],
    ['2025-01-29', MONTHLY, 1, '2025-02-28'],
    ['2025-01-29', MONTHLY, 2, '2025-03-29'],
    // anchored on a leap day
    ['2024-02-29', MONTHLY, 1, '2024-03-29'], // the anchor day is the 29th
    ['2024-02-29', MONTHLY, 12, '2025-02-28'],
    ['2024-02-29', MONTHLY, 48, '2028-02-29'],
    // 2-month terms on the 31st: Feb 29, Apr 30, Jun 30, Aug 31
    ['2023-12-31', months(2), 1, '2024-02-29'],
    ['2023-12-31', months(2), 2, '2024-04-30'],
    ['2023-12-31', months(2), 3, '2024-06-30'],
    ['2023-12-31', months(2), 4, '2024-08-31'],
    // 3-month terms on the 30th: Feb 28, May 30, Aug 30
    ['2025-11-30', months(3), 1, '2026-02-28'],
    ['2025-11-30', months(3), 2, '2026-05-30'],
    ['2025-11-30', months(3), 3, '2026-08-30'],
    // 12-month terms on a leap day
    ['2024-02-29', months(12), 1, '2025-02-28'],
    ['2024-02-29', months(12), 4, '2028-02-29'],
    // n-day terms: plain day counts across month and year ends
    ['2026-02-25', days(7), 1, '2026-03-04'], // 3 days left in Feb + 4
    ['2024-01-31', days(30), 1, '2024-03-01'], // Jan 31 + 29 = Feb 29, + 1
    ['2025-01-31', days(30), 1, '2025-03-02'], // Jan 31 + 28 = Feb 28, + 2
    ['2024-01-01', days(1), 365, '2024-12-31'], // 366 days in 2024
    ['2025-12-25', days(14), 1, '2026-01-08'],
    // k = 0 is the anchor
    ['2025-01-31', MONTHLY, 0, '2025-01-31'],
    ['2026-02-25', days(7), 0, '2026-02-25'],
    // negative k counts back from the anchor itself, clamping the same way
    ['2024-03-31', MONTHLY, -1, '2024-02-29'],
    ['2024-03-31', MONTHLY, -2, '2024-01-31'],
    ['2024-03-31', MONTHLY, -13, '2023-02-28'],
    ['2026-02-01', MONTHLY, -1, '2026-01-01'],
    ['2025-02-28', months(12), -1, '2024-02-28'],
    ['2026-03-04', days(7), -1, '2026-02-25'],
    ['2026-03-04', days(7), -10, '2025-12-24'], // 70 days back
  ])('puts boundary of %s every %o, k = %i, on %s', (anchor, term, k, expected) => {
    expect(boundary(anchor, term, k)).toBe(expected);
  });

  it('computes every boundary from the anchor, so a clamped month never drags the cycle', () => {
    const anchors = ['2024-01-29', '2024-01-30', '2024-01-31', '2025-01-29', '2025-01-30', '2025-01-31'];
    for (const anchor of anchors) {
      const day = Number(anchor.slice(8));
      for (let k = 0; k < 36; k += 1) {
        const date = Temporal.PlainDate.from(boundary(anchor, MONTHLY, k));
        // one boundary per calendar month, on the anchor day or the month's last day when that is shorter
        expect(date.toPlainYearMonth().toString()).toBe(
          Temporal.PlainYearMonth.from(anchor.slice(0, 7)).add({ months: k }).toString(),
        );
        expect(date.day).toBe(Math.min(day, date.daysInMonth));
      }
    }
  });
});

describe('periodIndexAt', () => {
  it.each([
    // monthly on Jan 31 2025 (common year): boundaries Jan 31, Feb 28, Mar 31, Apr 30
    ['2025-01-31', MONTHLY, '2025-01-30', -1], // the day before the anchor
    ['2025-01-31', MONTHLY, '2025-01-31', 0],
    ['2025-01-31', MONTHLY, '2025-02-01', 0],
    ['2025-01-31', MONTHLY, '2025-02-27', 0], // the day before the clamped boundary
    ['2025-01-31', MONTHLY, '2025-02-28', 1], // on it
    ['2025-01-31', MONTHLY, '2025-03-01', 1], // after it
    ['2025-01-31', MONTHLY, '2025-03-28', 1], // the anchor day is not the 28th
    ['2025-01-31', MONTHLY, '2025-03-30', 1],
    ['2025-01-31', MONTHLY, '2025-03-31', 2],
    ['2025-01-31', MONTHLY, '2025-04-01', 2],
    ['2025-01-31', MONTHLY, '2025-04-29', 2],
    ['2025-01-31', MONTHLY, '2025-04-30', 3],
    ['2025-01-31', MONTHLY, '2025-05-01', 3],
    // monthly on Jan 31 2024 (leap year): Feb 29
    ['2024-01-31', MONTHLY, '2024-02-28', 0],
    ['2024-01-31', MONTHLY, '2024-02-29', 1],
    ['2024-01-31', MONTHLY, '2024-03-01', 1],
    ['2024-01-31', MONTHLY, '2024-03-30', 1],
    ['2024-01-31', MONTHLY, '2024-03-31', 2],
    // monthly on the 30th
    ['2024-01-30', MONTHLY, '2024-02-28', 0],
    ['2024-01-30', MONTHLY, '2024-02-29', 1],
    ['2024-01-30', MONTHLY, '2024-03-29', 1],
    ['2024-01-30', MONTHLY, '2024-03-30', 2],
    ['2025-01-30', MONTHLY, '2025-02-27', 0],
    ['2025-01-30', MONTHLY, '2025-02-28', 1],
    ['2025-01-30', MONTHLY, '2025-03-01', 1],
    ['2025-01-30', MONTHLY, '2025-03-29', 1],
    ['2025-01-30', MONTHLY, '2025-03-30', 2],
    // monthly on the 29th
    ['2024-01-29', MONTHLY, '2024-02-28', 0],
    ['2024-01-29', MONTHLY, '2024-02-29', 1],
    ['2024-01-29', MONTHLY, '2024-03-01', 1],
    ['2025-01-29', MONTHLY, '2025-02-27', 0],
    ['2025-01-29', MONTHLY, '2025-02-28', 1],
    ['2025-01-29', MONTHLY, '2025-03-28', 1],
    ['2025-01-29', MONTHLY, '2025-03-29', 2],
    // before the anchor: negative periods, clamped too (boundary −1 of Mar 31 2024 is Feb 29)
    ['2024-03-31', MONTHLY, '2024-03-30', -1],
    ['2024-03-31', MONTHLY, '2024-02-29', -1],
    ['2024-03-31', MONTHLY, '2024-02-28', -2],
    ['2024-03-31', MONTHLY, '2024-01-31', -2],
    ['2024-03-31', MONTHLY, '2024-01-30', -3],
    // 3-month terms on Nov 30 2025: Feb 28, May 30
    ['2025-11-30', months(3), '2026-02-27', 0],
    ['2025-11-30', months(3), '2026-02-28', 1],
    ['2025-11-30', months(3), '2026-03-01', 1],
    ['2025-11-30', months(3), '2026-05-29', 1],
    ['2025-11-30', months(3), '2026-05-30', 2],
    // 12-month terms on a leap day: Feb 28 in common years
    ['2024-02-29', months(12), '2025-02-27', 0],
    ['2024-02-29', months(12), '2025-02-28', 1],
    ['2024-02-29', months(12), '2028-02-28', 3],
    ['2024-02-29', months(12), '2028-02-29', 4],
    // 7-day terms on Feb 25 2026: Feb 18, Feb 25, Mar 4
    ['2026-02-25', days(7), '2026-02-17', -2],
    ['2026-02-25', days(7), '2026-02-18', -1],
    ['2026-02-25', days(7), '2026-02-24', -1],
    ['2026-02-25', days(7), '2026-02-25', 0],
    ['2026-02-25', days(7), '2026-03-03', 0],
    ['2026-02-25', days(7), '2026-03-04', 1],
    ['2026-02-25', days(7), '2026-03-05', 1],
    // 1-day terms: the number of days
    ['2024-01-01', days(1), '2024-12-31', 365],
  ])('puts %s every %o, date %s in period %i', (anchor, term, date, expected) => {
    expect(periodIndexAt(anchor, term, date)).toBe(expected);
  });

  const anchorArb = fc.integer({ min: 0, max: 365 * 12 }).map((offset) => addDays('2020-01-01', offset));
  const termArb = fc.oneof(
    fc.integer({ min: 1, max: 12 }).map(months),
    fc.integer({ min: 1, max: 60 }).map(days),
  );

  it('finds the period whose boundaries hold the date', () => {
    fc.assert(
      fc.property(anchorArb, termArb, fc.integer({ min: -2000, max: 2000 }), (anchor, term, offset) => {
        const date = addDays(anchor, offset);
        const k = periodIndexAt(anchor, term, date);
        expect(boundary(anchor, term, k) <= date).toBe(true);
        expect(boundary(anchor, term, k + 1) > date).toBe(true);
        expect(isBoundary(anchor, term, date)).toBe(boundary(anchor, term, k) === date);
      }),
    );
  });

  it('gives every boundary its own index, with strictly increasing dates', () => {
    fc.assert(
      fc.property(anchorArb, termArb, fc.integer({ min: -100, max: 100 }), (anchor, term, k) => {
        const date = boundary(anchor, term, k);
        expect(periodIndexAt(anchor, term, date)).toBe(k);
        expect(isBoundary(anchor, term, date)).toBe(true);
        expect(boundary(anchor, term, k + 1) > date).toBe(true);
        expect(periodIndexAt(anchor, term, addDays(date, -1))).toBe(k - 1);
      }),
    );
  });
});

describe('isBoundary', () => {
  it.each([
    ['2025-01-31', MONTHLY, '2025-02-28', true], // clamped
    ['2025-01-31', MONTHLY, '2025-03-28', false], // the anchor day is the 31st
    ['2025-01-31', MONTHLY, '2025-03-31', true],
    ['2025-01-31', MONTHLY, '2024-12-31', true], // k = −1
    ['2026-02-25', days(7), '2026-03-04', true],
    ['2026-02-25', days(7), '2026-03-05', false],
  ])('says whether %s every %o has a boundary on %s: %s', (anchor, term, date, expected) => {
    expect(isBoundary(anchor, term, date)).toBe(expected);
  });
});

describe('terms', () => {
  it.each([
    [months(1), true],
    [months(12), true],
    [days(1), true],
    [days(0), false],
    [months(-1), false],
    [months(1.5), false],
    [days(Number.NaN), false],
    [days(2 ** 53), false],
    [{ count: 1, unit: 'weeks' } as unknown as Term, false],
  ])('%o is a valid term: %s', (term, expected) => {
    expect(isValidTerm(term)).toBe(expected);
  });

  it('knows the term units', () => {
    expect(isTermUnit('months')).toBe(true);
    expect(isTermUnit('days')).toBe(true);
    expect(isTermUnit('Months')).toBe(false);
    expect(isTermUnit('weeks')).toBe(false);
  });
});
