import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { billCycleDateFrom, billCycleDateIn, cycleAnchorThrough, isBillCycleDate } from './billCycleDay.ts';
import { movedAfterBilling, onDay } from './billCycleDay.fixtures.ts';
import { addDays, daysBetween } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { boundary, periodIndexAt } from '../../core/periods.ts';
import { planBilling } from './subscriptionBilling.ts';
import type { PlannedInvoice } from './subscriptionBilling.ts';

const EPOCH = '2020-01-01';
const dateArb = fc.integer({ min: 0, max: daysBetween(EPOCH, '2030-12-31') }).map((n) => addDays(EPOCH, n));
const dayArb = fc.integer({ min: 1, max: 31 });

/**
 * The cycle period holding `date` for a monthly cycle renewing on `day`, found without the billing core's anchors:
 * from the last day-date on or before it to the first one after it.
 */
function monthlyCycleHolding(date: PlainDate, day: number): { start: PlainDate; end: PlainDate } {
  const inMonth = billCycleDateIn(date, day);
  const start = inMonth <= date ? inMonth : billCycleDateIn(addDays(date.slice(0, 8) + '01', -1), day);
  return { start, end: billCycleDateFrom(addDays(date, 1), day) };
}

describe('bill-cycle-day dates (properties)', () => {
  it('the first day-date from a date is on or after it, on the day (or a shorter month’s end), and none is skipped', () => {
    fc.assert(
      fc.property(dateArb, dayArb, (from, day) => {
        const found = billCycleDateFrom(from, day);
        expect(found >= from).toBe(true);
        expect(isBillCycleDate(found, day)).toBe(true);
        const dayOfMonth = Number(found.slice(8));
        expect(dayOfMonth === day || (dayOfMonth < day && addDays(found, 1).endsWith('-01'))).toBe(true);
        for (let d = from; d < found; d = addDays(d, 1)) expect(isBillCycleDate(d, day)).toBe(false);
      }),
    );
  });

  it('days 29 to 31 clamp to a short month’s end and return the month after, for terms of 1 to 6 months', () => {
    fc.assert(
      fc.property(dateArb, dayArb, fc.integer({ min: 1, max: 6 }), (date, day, count) => {
        const term = { count, unit: 'months' as const };
        const onCycle = billCycleDateFrom(date, day);
        const anchor = cycleAnchorThrough(onCycle, day, term);
        expect(Number(anchor.slice(8))).toBe(day);
        const k = periodIndexAt(anchor, term, onCycle);
        expect(boundary(anchor, term, k)).toBe(onCycle);
        for (let i = k; i < k + 24; i += 1)
          expect(isBillCycleDate(boundary(anchor, term, i), day)).toBe(true);
      }),
    );
  });
});

/** [start, end, kind, amountMinor] of each period the invoices bill. */
const periodsOf = (invoices: readonly PlannedInvoice[]) =>
  invoices.flatMap((invoice) => (invoice.period ? [invoice.period] : []));

describe('one price per day of service (properties)', () => {
  it('new on a day, then perhaps moved to another: each period is the daily prices of its days, rounded once', () => {
    fc.assert(
      fc.property(
        dateArb,
        dayArb,
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.option(fc.integer({ min: 1, max: 40 }), { nil: null }),
        fc.option(fc.record({ afterDays: fc.integer({ min: 0, max: 200 }), day: dayArb }), { nil: null }),
        (start, day, priceMinor, trialDays, move) => {
          const price = new Big(priceMinor).div(100).toFixed(2);
          const trialEndDate = trialDays === null ? null : addDays(start, trialDays);
          const created = onDay(start, day, { price, trialEndDate });
          const horizon = addDays(start, 400);
          let periods;
          let moved = created;
          if (move) {
            const billedTo = addDays(start, move.afterDays);
            moved = movedAfterBilling(created, billedTo, move.day);
            periods = [
              ...periodsOf(planBilling(created, [], billedTo).invoices),
              ...periodsOf(planBilling(moved, [], horizon).invoices),
            ];
          } else {
            periods = periodsOf(planBilling(created, [], horizon).invoices);
          }
          // A move before the first whole term re-plans it on the new day; after, from the end of the billed time.
          const movedFrom = move ? (moved.offCycleStart ?? start) : null;
          const dayOn = (date: PlainDate) =>
            move && movedFrom !== null && date >= movedFrom ? move.day : day;

          expect(periods[0]!.start).toBe(start);
          for (const [i, period] of periods.entries()) {
            if (i > 0) expect(period.start).toBe(periods[i - 1]!.end);
            if (period.kind === 'trial') {
              expect(period.end).toBe(trialEndDate);
              continue;
            }
            // Every period ends on the day in force, and the exact daily prices of its days sum to its amount
            // to within the one rounding of its line.
            expect(isBillCycleDate(period.end, dayOn(addDays(period.end, -1)))).toBe(true);
            const daysByCycleLength = new Map<number, number>();
            for (let d = period.start; d < period.end; d = addDays(d, 1)) {
              const cycle = monthlyCycleHolding(d, dayOn(d));
              const length = daysBetween(cycle.start, cycle.end);
              daysByCycleLength.set(length, (daysByCycleLength.get(length) ?? 0) + 1);
            }
            let exact = new Big(0);
            for (const [length, days] of daysByCycleLength) {
              exact = exact.plus(new Big(priceMinor).times(days).div(length));
            }
            // Half a minor unit, the most one rounding moves an amount (and 1e-12 for Big's 20-digit division).
            expect(exact.minus(period.amountMinor).abs().lte('0.500000000001')).toBe(true);
          }
        },
      ),
    );
  });

  it('terms of 1 to 6 months, trials and moves: periods tile time, each ends on the day, whole terms are whole', () => {
    fc.assert(
      fc.property(
        dateArb,
        dayArb,
        fc.integer({ min: 1, max: 6 }),
        fc.option(fc.integer({ min: 1, max: 40 }), { nil: null }),
        fc.option(fc.record({ afterDays: fc.integer({ min: 0, max: 400 }), day: dayArb }), { nil: null }),
        (start, day, count, trialDays, move) => {
          const term = { count, unit: 'months' as const };
          const trialEndDate = trialDays === null ? null : addDays(start, trialDays);
          const created = onDay(start, day, { term, trialEndDate });
          const horizon = addDays(start, 800);
          const moved = move ? movedAfterBilling(created, addDays(start, move.afterDays), move.day) : created;
          const periods = move
            ? [
                ...periodsOf(planBilling(created, [], addDays(start, move.afterDays)).invoices),
                ...periodsOf(planBilling(moved, [], horizon).invoices),
              ]
            : periodsOf(planBilling(created, [], horizon).invoices);
          const movedFrom = move ? (moved.offCycleStart ?? start) : null;
          const dayOn = (date: PlainDate) =>
            move && movedFrom !== null && date >= movedFrom ? move.day : day;
          expect(periods[0]!.start).toBe(start);
          for (const [i, period] of periods.entries()) {
            if (i > 0) expect(period.start).toBe(periods[i - 1]!.end);
            if (period.kind === 'trial') continue;
            expect(isBillCycleDate(period.end, dayOn(addDays(period.end, -1)))).toBe(true);
            if (period.kind === 'term') {
              // A whole term spans `count` months: its end is the day-date `count` months after its start's month.
              const months =
                (Number(period.end.slice(0, 4)) - Number(period.start.slice(0, 4))) * 12 +
                Number(period.end.slice(5, 7)) -
                Number(period.start.slice(5, 7));
              expect(months).toBe(count);
              expect(period.amountMinor).toBe(3000);
            } else {
              expect(period.amountMinor).toBeLessThanOrEqual(3000);
            }
          }
        },
      ),
    );
  });
});
