import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, daysBetween } from '../../core/calendar.ts';
import { boundary, periodIndexAt } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';
import { GOLD, periodsOf, subscription, termLine } from './subscriptionBilling.fixtures.ts';
import { periodStartingAt, planBilling } from './subscriptionBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import type { PriceTerms } from './subscriptionBilling.ts';
import { creditsForCut } from './subscriptionChanges.ts';
import { timelineAfter } from './subscriptionUpcoming.ts';

describe('planBilling', () => {
  it('applies a pending change at its effective date: new price and term from then on, anchored there', () => {
    const v2: PriceTerms = {
      label: 'Gold (v2)',
      term: { count: 2, unit: 'months' },
      chargePrice: '50.00',
      setupFee: '0',
      trialFee: '0',
    };
    const timeline = subscription({ pendingChange: { effectiveDate: '2026-03-15', terms: v2 } });
    const plan = planBilling(timeline, [], '2026-07-15');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-15', '2026-02-15', 'term', 3000],
      [2, '2026-02-15', '2026-03-15', 'term', 3000],
      [3, '2026-03-15', '2026-05-15', 'term', 5000], // 2 months at 50.00
      [4, '2026-05-15', '2026-07-15', 'term', 5000],
      [5, '2026-07-15', '2026-09-15', 'term', 5000],
    ]);
    expect(plan.invoices.map((i) => i.period!.appliesPendingChange)).toEqual([
      false,
      false,
      true,
      false,
      false,
    ]);
    expect(plan.invoices[2]!.lines).toEqual([termLine('2026-03-15', '2026-05-15', 'Gold (v2)', '50.00')]);
    expect(plan.next).toMatchObject({ terms: v2, anchorDate: '2026-03-15', pendingChangeApplied: true });
  });

  it('applies a change dated inside a period from the next period, anchored on its start', () => {
    // effective Mar 1, inside Feb 15–Mar 15: the new 14-day term starts Mar 15
    const v2: PriceTerms = {
      label: 'Gold (v2)',
      term: { count: 14, unit: 'days' },
      chargePrice: '20.00',
      setupFee: '0',
      trialFee: '0',
    };
    const timeline = subscription({ pendingChange: { effectiveDate: '2026-03-01', terms: v2 } });
    const plan = planBilling(timeline, [], '2026-03-29');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-15', '2026-02-15', 'term', 3000],
      [2, '2026-02-15', '2026-03-15', 'term', 3000],
      [3, '2026-03-15', '2026-03-29', 'term', 2000],
      [4, '2026-03-29', '2026-04-12', 'term', 2000],
    ]);
    expect(plan.next.anchorDate).toBe('2026-03-15');
  });

  it('keeps the old terms until the run reaches the change, and applies it on a later run', () => {
    const v2: PriceTerms = { ...GOLD, label: 'Gold (v2)', chargePrice: '45.00' };
    let timeline = subscription({ pendingChange: { effectiveDate: '2026-03-15', terms: v2 } });
    const first = planBilling(timeline, [], '2026-02-15');
    expect(first.next).toMatchObject({ pendingChangeApplied: false, terms: GOLD });
    timeline = timelineAfter(timeline, first);
    expect(timeline.pendingChange).not.toBeNull();
    const second = planBilling(timeline, [], '2026-03-15');
    expect(periodsOf(second.invoices)).toEqual([[3, '2026-03-15', '2026-04-15', 'term', 4500]]);
    expect(second.next.pendingChangeApplied).toBe(true);
  });
});

/**
 * A change made now that keeps the anchor leaves the record as the subscriptions module writes it: billed time
 * cut at the change day, the next period starting there (off the cycle, allowed by offCycleStart) on the new terms.
 */
function changedNow(
  changeDay: string,
  terms: PriceTerms,
  overrides: Parameters<typeof subscription>[0] = {},
) {
  const billed = planBilling(subscription(overrides), [], changeDay);
  return {
    ...timelineAfter(subscription(overrides), billed),
    nextRenewDate: changeDay,
    offCycleStart: changeDay,
    terms,
  };
}

const priced = (chargePrice: string, term: Term = GOLD.term): PriceTerms => ({
  ...GOLD,
  label: 'Platinum',
  term,
  chargePrice,
});

describe('a change made now that keeps the billing anchor', () => {
  it('upgrade 10.00 → 20.00 a month half-way: credit 5.00, charge 10.00, renewal unchanged', () => {
    // Apr 1 – May 1 is 30 days; changed on Apr 16: 15 days unused.
    // credit 10.00 × 15 / 30 = 5.00; charge 20.00 × 15 / 30 = 10.00 for Apr 16 – May 1; then 20.00 from May 1.
    const start = { startDate: '2026-04-01', terms: priced('10.00') };
    const { credits } = creditsForCut(
      [{ periodNo: 1, start: '2026-04-01', end: '2026-05-01', amountMinor: 1000, taxPercs: [] }],
      '2026-04-16',
      'prorata',
    );
    expect(credits.map((c) => [c.start, c.end, c.exMinor])).toEqual([['2026-04-16', '2026-05-01', 500]]);
    const plan = planBilling(changedNow('2026-04-16', priced('20.00'), start), [], '2026-05-01');
    expect(periodsOf(plan.invoices)).toEqual([
      [2, '2026-04-16', '2026-05-01', 'stub', 1000],
      [3, '2026-05-01', '2026-06-01', 'term', 2000],
    ]);
    expect(plan.invoices[0]!.lines).toEqual([
      {
        descrip: 'Platinum (pro-rated, 15 of 30 days)',
        qty: '1',
        unitCostEx: '10.00',
        periodStart: '2026-04-16',
        periodEnd: '2026-05-01',
      },
    ]);
    expect(plan.next.anchorDate).toBe('2026-04-01');
  });

  it('a later cut reaching back before a period already cut to nothing credits it no more', () => {
    // A change in a trial (ending Dec 10) cut the first term Dec 10 – Jan 10 to nothing, crediting its 40.00; a
    // reset on Nov 30 then cuts everything from Nov 30: only the trial fee (5.00) and the new stub (31.00) remain.
    const { credits, cuts } = creditsForCut(
      [
        { periodNo: 1, start: '2027-11-30', end: '2027-12-10', amountMinor: 500, taxPercs: [] },
        { periodNo: 2, start: '2027-12-10', end: '2027-12-10', amountMinor: 4000, taxPercs: [] },
        { periodNo: 3, start: '2027-12-10', end: '2028-01-10', amountMinor: 3100, taxPercs: [] },
      ],
      '2027-11-30',
      'prorata',
    );
    expect(credits.map((c) => [c.periodNo, c.exMinor])).toEqual([
      [1, 500],
      [3, 3100],
    ]);
    expect(cuts.map((c) => [c.periodNo, c.start, c.end])).toEqual([
      [1, '2027-11-30', '2027-11-30'],
      [2, '2027-11-30', '2027-11-30'],
      [3, '2027-11-30', '2027-11-30'],
    ]);
  });

  it('downgrade 30.00 → 12.00: the credit exceeds the charge, each rounded once', () => {
    // Mar 15 – Apr 15 is 31 days; changed Mar 20: 26 days left.
    // credit 30.00 × 26 / 31 = 25.161… → 25.16; charge 12.00 × 26 / 31 = 10.064… → 10.06.
    const { credits } = creditsForCut(
      [{ periodNo: 3, start: '2026-03-15', end: '2026-04-15', amountMinor: 3000, taxPercs: ['0.15'] }],
      '2026-03-20',
      'prorata',
    );
    // with 15% tax on the credited part: 25.16 + 3.774 → 3.77 = 28.93
    expect(credits.map((c) => [c.exMinor, c.totalMinor])).toEqual([[2516, 2893]]);
    const plan = planBilling(changedNow('2026-03-20', priced('12.00')), [], '2026-03-20');
    expect(periodsOf(plan.invoices)).toEqual([[4, '2026-03-20', '2026-04-15', 'stub', 1006]]);
    expect(plan.next).toMatchObject({ nextRenewDate: '2026-04-15', anchorDate: '2026-01-15' });
  });

  it('keeps a month-end anchor: a stub to Feb 28 over the 28 days of Jan 31 – Feb 28, then back to the 31st', () => {
    // anchored Jan 31; changed Feb 10: 18 of 28 days; 28.00 × 18 / 28 = 18.00
    const timeline = changedNow('2026-02-10', priced('28.00'), { startDate: '2026-01-31' });
    const plan = planBilling(timeline, [], '2026-04-29');
    expect(periodsOf(plan.invoices)).toEqual([
      [2, '2026-02-10', '2026-02-28', 'stub', 1800],
      [3, '2026-02-28', '2026-03-31', 'term', 2800],
      [4, '2026-03-31', '2026-04-30', 'term', 2800],
    ]);
  });

  it('on a renewal day there is nothing to pro-rate: a whole term at the new price', () => {
    const plan = planBilling(changedNow('2026-03-15', priced('45.00')), [], '2026-03-15');
    expect(periodsOf(plan.invoices)).toEqual([[4, '2026-03-15', '2026-04-15', 'term', 4500]]);
  });

  it('cuts the stub at an EndDate inside it, still pro-rated over the cycle period', () => {
    // Mar 20 – Apr 1 of Mar 15 – Apr 15: 12 of 31 days; 60.00 × 12 / 31 = 23.225… → 23.23
    const timeline = { ...changedNow('2026-03-20', priced('60.00')), endDate: '2026-04-01' };
    const plan = planBilling(timeline, [], '2026-05-01');
    expect(periodsOf(plan.invoices)).toEqual([[4, '2026-03-20', '2026-04-01', 'stub', 2323]]);
  });

  it('in a first pro-rata stub: pro-rated to the sync date over the term ending there', () => {
    // start Jan 22, sync Feb 1 (whole term Jan 1 – Feb 1, 31 days); changed Jan 25: 7 days; 62.00 × 7 / 31 = 14.00
    const overrides = {
      startDate: '2026-01-22',
      isProRata: true,
      firstProrataSyncDate: '2026-02-01',
      anchorDate: '2026-02-01',
    };
    const plan = planBilling(changedNow('2026-01-25', priced('62.00'), overrides), [], '2026-02-01');
    expect(periodsOf(plan.invoices)).toEqual([
      [2, '2026-01-25', '2026-02-01', 'stub', 1400],
      [3, '2026-02-01', '2026-03-01', 'term', 6200],
    ]);
  });

  it('still refuses a start off the cycle that no change made', () => {
    const timeline = { ...changedNow('2026-03-20', priced('60.00')), offCycleStart: '2026-03-19' };
    expect(() => planBilling(timeline, [], '2026-03-20')).toThrow(BillingInvariantError);
    expect(() => periodStartingAt(timeline, priced('60.00'), '2026-01-15', '2026-03-21')).toThrow(
      /not on the billing cycle/,
    );
  });

  it('for any anchor, term and change day: credit and charge over the same days, renewals unchanged', () => {
    const termArb = fc.oneof(
      fc.record({ count: fc.integer({ min: 1, max: 12 }), unit: fc.constant('months' as const) }),
      fc.record({ count: fc.integer({ min: 1, max: 90 }), unit: fc.constant('days' as const) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1500 }),
        termArb,
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        (startOffset, term, changeOffset, oldMinor, newMinor) => {
          const startDate = addDays('2024-01-01', startOffset);
          const changeDay = addDays(startDate, changeOffset);
          const oldTerms = { ...priced((oldMinor / 100).toFixed(2), term), label: 'Old' };
          const newTerms = priced((newMinor / 100).toFixed(2), term);
          const k = periodIndexAt(startDate, term, changeDay);
          const [cycleStart, cycleEnd] = [boundary(startDate, term, k), boundary(startDate, term, k + 1)];
          const left = daysBetween(changeDay, cycleEnd);
          const whole = daysBetween(cycleStart, cycleEnd);

          const { credits } = creditsForCut(
            [{ periodNo: k + 1, start: cycleStart, end: cycleEnd, amountMinor: oldMinor, taxPercs: [] }],
            changeDay,
            'prorata',
          );
          // the one rounding rule: half away from zero, once
          const share = (minor: number) => Math.floor((2 * minor * left + whole) / (2 * whole));
          expect(credits.map((c) => c.exMinor)).toEqual([share(oldMinor)].filter((x) => x !== 0));

          const timeline = changedNow(changeDay, newTerms, { startDate, terms: oldTerms });
          const plan = planBilling(timeline, [], boundary(startDate, term, k + 3));
          const first = plan.invoices[0]!.period!;
          expect([first.start, first.end, first.amountMinor]).toEqual([changeDay, cycleEnd, share(newMinor)]);
          expect(first.kind).toBe(changeDay === cycleStart ? 'term' : 'stub');
          expect(plan.invoices.slice(1).map((i) => [i.period!.start, i.period!.amountMinor])).toEqual(
            [1, 2, 3].map((j) => [boundary(startDate, term, k + j), newMinor]),
          );
          expect(plan.next.anchorDate).toBe(startDate);
        },
      ),
      { numRuns: 300 },
    );
  });
});
