import { describe, expect, it } from 'vitest';
import { GOLD, periodsOf, subscription, termLine } from './subscriptionBilling.fixtures.ts';
import { periodStartingAt, planBilling } from './subscriptionBilling.ts';
import { trialEndOf } from './subscriptionStatus.ts';
import type { PlannedInvoice } from './subscriptionBilling.ts';
import { timelineAfter } from './subscriptionUpcoming.ts';

describe('planBilling', () => {
  it('bills a monthly subscription on its start date', () => {
    const plan = planBilling(subscription(), [], '2026-01-15');
    expect(plan.invoices).toEqual([
      {
        invoiceDate: '2026-01-15',
        lines: [termLine('2026-01-15', '2026-02-15')],
        usageIds: [],
        period: {
          periodNo: 1,
          start: '2026-01-15',
          end: '2026-02-15',
          kind: 'term',
          chargePrice: '30.00',
          amountMinor: 3000,
          appliesPendingChange: false,
        },
      },
    ]);
    expect(plan.next).toEqual({
      periodCount: 1,
      nextRenewDate: '2026-02-15',
      lastRenewDate: '2026-01-15',
      lastInvDate: '2026-01-15',
      nextInvDate: '2026-02-15',
      setupBilled: true,
      anchorDate: '2026-01-15',
      terms: GOLD,
      pendingChangeApplied: false,
    });
  });

  it('bills nothing before the start and says when to look again', () => {
    const plan = planBilling(subscription(), [], '2026-01-14');
    expect(plan.invoices).toEqual([]);
    expect(plan.next).toMatchObject({
      periodCount: 0,
      nextRenewDate: null,
      lastRenewDate: null,
      lastInvDate: null,
      nextInvDate: '2026-01-15',
      setupBilled: false,
    });
  });

  it('catches up three missed months with one invoice each, dated on its period start', () => {
    // start Jan 15, run on Mar 20: Jan 15, Feb 15 and Mar 15 are all due
    const plan = planBilling(subscription(), [], '2026-03-20');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-15', '2026-02-15', 'term', 3000],
      [2, '2026-02-15', '2026-03-15', 'term', 3000],
      [3, '2026-03-15', '2026-04-15', 'term', 3000],
    ]);
    expect(plan.invoices.map((i) => i.invoiceDate)).toEqual(['2026-01-15', '2026-02-15', '2026-03-15']);
    expect(plan.next).toMatchObject({
      periodCount: 3,
      nextRenewDate: '2026-04-15',
      lastRenewDate: '2026-03-15',
      lastInvDate: '2026-03-15',
      nextInvDate: '2026-04-15',
    });
    // the next run bills only what is new
    const later = planBilling(timelineAfter(subscription(), plan), [], '2026-04-15');
    expect(periodsOf(later.invoices)).toEqual([[4, '2026-04-15', '2026-05-15', 'term', 3000]]);
  });

  it('bills a cycle anchored on Jan 31 on Feb 28, then Mar 31', () => {
    const plan = planBilling(subscription({ startDate: '2026-01-31' }), [], '2026-05-01');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-31', '2026-02-28', 'term', 3000], // a whole month, however short
      [2, '2026-02-28', '2026-03-31', 'term', 3000], // back to the 31st
      [3, '2026-03-31', '2026-04-30', 'term', 3000],
      [4, '2026-04-30', '2026-05-31', 'term', 3000],
    ]);
    expect(plan.invoices.map((i) => i.invoiceDate)).toEqual([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
    ]);
  });

  it('bills a cycle anchored on Jan 31 of a leap year on Feb 29', () => {
    const plan = planBilling(subscription({ startDate: '2028-01-31' }), [], '2028-03-31');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2028-01-31', '2028-02-29', 'term', 3000],
      [2, '2028-02-29', '2028-03-31', 'term', 3000],
      [3, '2028-03-31', '2028-04-30', 'term', 3000],
    ]);
  });

  it('keeps the anchor day across runs: the run after Feb 28 still bills Mar 31', () => {
    let timeline = subscription({ startDate: '2026-01-31' });
    const billed: PlannedInvoice[] = [];
    for (const today of ['2026-01-31', '2026-02-28', '2026-03-30', '2026-03-31']) {
      const plan = planBilling(timeline, [], today);
      billed.push(...plan.invoices);
      timeline = timelineAfter(timeline, plan);
    }
    expect(periodsOf(billed)).toEqual([
      [1, '2026-01-31', '2026-02-28', 'term', 3000],
      [2, '2026-02-28', '2026-03-31', 'term', 3000],
      [3, '2026-03-31', '2026-04-30', 'term', 3000],
    ]);
  });

  it('bills a 7-day trial with its fee, then the first full charge at its end, anchored there', () => {
    const trialEndDate = trialEndOf('2026-03-01', 7, 'days');
    expect(trialEndDate).toBe('2026-03-08');
    const timeline = subscription({
      startDate: '2026-03-01',
      trialEndDate,
      terms: { ...GOLD, trialFee: '5.00' },
    });
    const plan = planBilling(timeline, [], '2026-03-08');
    expect(plan.invoices).toEqual([
      {
        invoiceDate: '2026-03-01',
        lines: [
          {
            descrip: 'Gold (v1): trial',
            qty: '1',
            unitCostEx: '5.00',
            periodStart: '2026-03-01',
            periodEnd: '2026-03-08',
          },
        ],
        usageIds: [],
        period: {
          periodNo: 1,
          start: '2026-03-01',
          end: '2026-03-08',
          kind: 'trial',
          chargePrice: '5.00',
          amountMinor: 500,
          appliesPendingChange: false,
        },
      },
      {
        invoiceDate: '2026-03-08',
        lines: [termLine('2026-03-08', '2026-04-08')],
        usageIds: [],
        period: {
          periodNo: 2,
          start: '2026-03-08',
          end: '2026-04-08',
          kind: 'term',
          chargePrice: '30.00',
          amountMinor: 3000,
          appliesPendingChange: false,
        },
      },
    ]);
    expect(plan.next.anchorDate).toBe('2026-03-08');
    // the cycle stays on the 8th
    const later = planBilling(timelineAfter(timeline, plan), [], '2026-05-08');
    expect(periodsOf(later.invoices)).toEqual([
      [3, '2026-04-08', '2026-05-08', 'term', 3000],
      [4, '2026-05-08', '2026-06-08', 'term', 3000],
    ]);
  });

  it('bills a free trial as a period without a charge line', () => {
    const timeline = subscription({ startDate: '2026-03-01', trialEndDate: '2026-03-15' });
    const plan = planBilling(timeline, [], '2026-03-01');
    expect(plan.invoices).toHaveLength(1);
    expect(plan.invoices[0]!.lines).toEqual([]);
    expect(plan.invoices[0]!.period).toMatchObject({ kind: 'trial', amountMinor: 0, end: '2026-03-15' });
    expect(plan.next.nextInvDate).toBe('2026-03-15');
  });

  it('ends a trial of a month on the clamped date and anchors the cycle there', () => {
    expect(trialEndOf('2026-01-31', 1, 'months')).toBe('2026-02-28');
    expect(trialEndOf('2026-01-31', 0, 'days')).toBeNull();
    const timeline = subscription({ startDate: '2026-01-31', trialEndDate: '2026-02-28' });
    const plan = planBilling(timeline, [], '2026-04-27');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-31', '2026-02-28', 'trial', 0],
      [2, '2026-02-28', '2026-03-28', 'term', 3000], // anchored on the trial's end, the 28th
      [3, '2026-03-28', '2026-04-28', 'term', 3000],
    ]);
  });

  it('charges the setup fee on the first invoice only', () => {
    const timeline = subscription({ terms: { ...GOLD, setupFee: '99.00' } });
    const setupLine = {
      descrip: 'Gold (v1): setup fee',
      qty: '1',
      unitCostEx: '99.00',
      periodStart: null,
      periodEnd: null,
    };
    const plan = planBilling(timeline, [], '2026-03-15');
    expect(plan.invoices.map((i) => i.lines)).toEqual([
      [setupLine, termLine('2026-01-15', '2026-02-15')],
      [termLine('2026-02-15', '2026-03-15')],
      [termLine('2026-03-15', '2026-04-15')],
    ]);
    expect(plan.next.setupBilled).toBe(true);
    const later = planBilling(timelineAfter(timeline, plan), [], '2026-04-15');
    expect(later.invoices.map((i) => i.lines)).toEqual([[termLine('2026-04-15', '2026-05-15')]]);
  });

  it('charges the setup fee with the trial when there is one', () => {
    const timeline = subscription({
      startDate: '2026-03-01',
      trialEndDate: '2026-03-08',
      terms: { ...GOLD, setupFee: '99.00' },
    });
    const plan = planBilling(timeline, [], '2026-03-08');
    expect(plan.invoices.map((i) => i.lines.map((line) => line.descrip))).toEqual([
      ['Gold (v1): setup fee'], // the free trial itself adds no line
      ['Gold (v1)'],
    ]);
  });

  it('pro-rates the first period up to the sync date, then bills whole months from it', () => {
    // 30.00 a month, start Jan 22, sync Feb 1: the stub is 10 of the 31 days of Jan 1–Feb 1.
    // 3000 × 10 / 31 = 967.74… → 968 = 9.68
    const timeline = subscription({
      startDate: '2026-01-22',
      isProRata: true,
      firstProrataSyncDate: '2026-02-01',
    });
    const plan = planBilling(timeline, [], '2026-03-01');
    expect(plan.invoices[0]).toEqual({
      invoiceDate: '2026-01-22',
      lines: [
        {
          descrip: 'Gold (v1) (pro-rated, 10 of 31 days)',
          qty: '1',
          unitCostEx: '9.68',
          periodStart: '2026-01-22',
          periodEnd: '2026-02-01',
        },
      ],
      usageIds: [],
      period: {
        periodNo: 1,
        start: '2026-01-22',
        end: '2026-02-01',
        kind: 'stub',
        chargePrice: '30.00',
        amountMinor: 968,
        appliesPendingChange: false,
        // The stub's fraction, with which a fixed coupon is prorated (subscriptionCoupons.ts).
        proration: { days: 10, termDays: 31 },
      },
    });
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-22', '2026-02-01', 'stub', 968],
      [2, '2026-02-01', '2026-03-01', 'term', 3000],
      [3, '2026-03-01', '2026-04-01', 'term', 3000],
    ]);
    expect(plan.invoices.map((i) => i.invoiceDate)).toEqual(['2026-01-22', '2026-02-01', '2026-03-01']);
    expect(plan.next.anchorDate).toBe('2026-02-01');
  });

  it('pro-rates a stub in February by the days of the month before the sync date', () => {
    // start Feb 20 2026, sync Mar 1: the whole term is Feb 1–Mar 1 (28 days), the stub 9 days.
    // 3000 × 9 / 28 = 964.28… → 964
    const timeline = subscription({
      startDate: '2026-02-20',
      isProRata: true,
      firstProrataSyncDate: '2026-03-01',
    });
    const plan = planBilling(timeline, [], '2026-02-20');
    expect(periodsOf(plan.invoices)).toEqual([[1, '2026-02-20', '2026-03-01', 'stub', 964]]);
    expect(plan.invoices[0]!.lines[0]!.descrip).toBe('Gold (v1) (pro-rated, 9 of 28 days)');
  });

  it('ignores the sync date when the subscription is not pro-rata', () => {
    const timeline = subscription({ startDate: '2026-01-22', firstProrataSyncDate: '2026-02-01' });
    const plan = planBilling(timeline, [], '2026-02-22');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-22', '2026-02-22', 'term', 3000],
      [2, '2026-02-22', '2026-03-22', 'term', 3000],
    ]);
  });

  it('cuts the last period at the EndDate into a pro-rated stub and bills nothing after', () => {
    // start Jan 15, end Apr 1: the third period Mar 15–Apr 15 (31 days) is cut to Mar 15–Apr 1 (17 days).
    // 3000 × 17 / 31 = 1645.16… → 1645 = 16.45
    const timeline = subscription({ endDate: '2026-04-01' });
    const plan = planBilling(timeline, [], '2026-06-01');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-15', '2026-02-15', 'term', 3000],
      [2, '2026-02-15', '2026-03-15', 'term', 3000],
      [3, '2026-03-15', '2026-04-01', 'stub', 1645],
    ]);
    expect(plan.invoices[2]!.lines).toEqual([
      {
        descrip: 'Gold (v1) (pro-rated, 17 of 31 days)',
        qty: '1',
        unitCostEx: '16.45',
        periodStart: '2026-03-15',
        periodEnd: '2026-04-01',
      },
    ]);
    expect(plan.next).toMatchObject({
      nextRenewDate: '2026-04-01',
      nextInvDate: null,
      anchorDate: '2026-01-15',
    });
    expect(planBilling(timelineAfter(timeline, plan), [], '2027-01-01').invoices).toEqual([]);
  });

  it('bills a whole last term when the EndDate falls on a boundary', () => {
    const plan = planBilling(subscription({ endDate: '2026-03-15' }), [], '2026-06-01');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-15', '2026-02-15', 'term', 3000],
      [2, '2026-02-15', '2026-03-15', 'term', 3000],
    ]);
    expect(plan.next.nextInvDate).toBeNull();
  });

  it('cuts a first pro-rated stub at an EndDate before the sync date', () => {
    // start Jan 22, sync Feb 1, end Jan 27: 5 of the 31 days of Jan 1–Feb 1. 3000 × 5 / 31 = 483.87… → 484
    const timeline = subscription({
      startDate: '2026-01-22',
      isProRata: true,
      firstProrataSyncDate: '2026-02-01',
      endDate: '2026-01-27',
    });
    const plan = planBilling(timeline, [], '2026-03-01');
    expect(periodsOf(plan.invoices)).toEqual([[1, '2026-01-22', '2026-01-27', 'stub', 484]]);
  });

  it('stops billing at the cancel date: periods that start before it are billed, none after', () => {
    // cancelled Feb 20: the period of Feb 15 has started and is billed whole; Mar 15 is not
    const plan = planBilling(subscription({ cancelDate: '2026-02-20' }), [], '2026-06-01');
    expect(periodsOf(plan.invoices)).toEqual([
      [1, '2026-01-15', '2026-02-15', 'term', 3000],
      [2, '2026-02-15', '2026-03-15', 'term', 3000],
    ]);
    expect(plan.next.nextInvDate).toBeNull();
  });

  it('bills no period that starts on the cancel date', () => {
    const plan = planBilling(subscription({ cancelDate: '2026-02-15' }), [], '2026-06-01');
    expect(periodsOf(plan.invoices)).toEqual([[1, '2026-01-15', '2026-02-15', 'term', 3000]]);
    expect(plan.next.nextInvDate).toBeNull();
  });

  it('bills nothing when cancelled before the start', () => {
    const plan = planBilling(subscription({ cancelDate: '2026-01-10' }), [], '2026-06-01');
    expect(plan.invoices).toEqual([]);
    expect(plan.next.nextInvDate).toBeNull();
  });

  it('takes the earlier of the cancel date and the EndDate', () => {
    const plan = planBilling(
      subscription({ cancelDate: '2026-02-20', endDate: '2026-12-01' }),
      [],
      '2026-12-01',
    );
    expect(plan.invoices).toHaveLength(2);
  });

  it('dates invoices numDaysBeforeToInv before the period, never before the subscription was created', () => {
    // created Jan 12, start Jan 15, 5 days ahead: Jan 10 is before creation, so the first invoice is dated Jan 12;
    // the second, for Feb 15, is dated Feb 10.
    const timeline = subscription({ numDaysBeforeToInv: 5, createdOn: '2026-01-12' });
    expect(planBilling(timeline, [], '2026-01-11').next.nextInvDate).toBe('2026-01-12');
    const plan = planBilling(timeline, [], '2026-02-09');
    expect(plan.invoices.map((i) => [i.invoiceDate, i.period!.start])).toEqual([
      ['2026-01-12', '2026-01-15'],
    ]);
    expect(plan.next.nextInvDate).toBe('2026-02-10');
    const later = planBilling(timelineAfter(timeline, plan), [], '2026-02-10');
    expect(later.invoices.map((i) => [i.invoiceDate, i.period!.start])).toEqual([
      ['2026-02-10', '2026-02-15'],
    ]);
  });

  it('dates every caught-up invoice of a backdated subscription on its creation day', () => {
    const timeline = subscription({ startDate: '2026-01-15', createdOn: '2026-03-20' });
    const plan = planBilling(timeline, [], '2026-03-20');
    expect(plan.invoices.map((i) => [i.invoiceDate, i.period!.start])).toEqual([
      ['2026-03-20', '2026-01-15'],
      ['2026-03-20', '2026-02-15'],
      ['2026-03-20', '2026-03-15'],
    ]);
  });
});

describe('periodStartingAt', () => {
  const plain = { endDate: null, trialEndDate: null, isProRata: false, firstProrataSyncDate: null };

  it('gives a first stub its whole term: the term that ends at the sync date', () => {
    const timeline = { ...plain, isProRata: true, firstProrataSyncDate: '2026-03-31' };
    // Feb 28 is boundary −1 of Mar 31 in 2026
    expect(periodStartingAt(timeline, GOLD, '2026-03-31', '2026-03-10')).toEqual({
      start: '2026-03-10',
      end: '2026-03-31',
      kind: 'stub',
      fullStart: '2026-02-28',
      fullEnd: '2026-03-31',
    });
  });

  it('cuts a term at the EndDate and keeps its whole term for proration', () => {
    expect(periodStartingAt({ ...plain, endDate: '2026-04-01' }, GOLD, '2026-01-15', '2026-03-15')).toEqual({
      start: '2026-03-15',
      end: '2026-04-01',
      kind: 'stub',
      fullStart: '2026-03-15',
      fullEnd: '2026-04-15',
    });
  });

  it('keeps a trial cut by the EndDate a trial', () => {
    const timeline = { ...plain, trialEndDate: '2026-03-15', endDate: '2026-03-10' };
    expect(periodStartingAt(timeline, GOLD, '2026-03-01', '2026-03-01')).toMatchObject({
      end: '2026-03-10',
      kind: 'trial',
    });
  });
});
