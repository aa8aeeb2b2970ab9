import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, daysBetween, maxDate, minDate } from './calendar.ts';
import type { PlainDate } from './calendar.ts';
import { priceInvoice } from './invoiceMath.ts';
import { decimalToMinor, productToMinor } from './money.ts';
import { boundary, periodIndexAt } from './periods.ts';
import type { Term } from './periods.ts';
import type { Bracket } from './pricing.ts';
import {
  BillingInvariantError,
  MAX_INVOICES_PER_PLAN,
  periodStartingAt,
  planBilling,
  subscriptionStatus,
  trialEndOf,
} from './subscriptionBilling.ts';
import type {
  BillingPlan,
  PlannedInvoice,
  PriceTerms,
  SubscriptionTimeline,
  UnbilledUsage,
} from './subscriptionBilling.ts';

const MONTHLY: Term = { count: 1, unit: 'months' };

const GOLD: PriceTerms = {
  label: 'Gold (v1)',
  term: MONTHLY,
  chargePrice: '30.00',
  setupFee: '0',
  trialFee: '0',
};

/** A monthly subscription at 30.00 USD, created on its start, nothing billed yet. */
function subscription(overrides: Partial<SubscriptionTimeline> = {}): SubscriptionTimeline {
  const startDate = overrides.startDate ?? '2026-01-15';
  return {
    currencyCode: 'USD',
    startDate,
    endDate: null,
    trialEndDate: null,
    isProRata: false,
    firstProrataSyncDate: null,
    anchorDate: startDate,
    numDaysBeforeToInv: 0,
    createdOn: startDate,
    cancelDate: null,
    periodCount: 0,
    nextRenewDate: null,
    setupBilled: false,
    terms: GOLD,
    pendingChange: null,
    ...overrides,
  };
}

/** The record as the bill run stores it after a plan: what planBilling reads back on the next run. */
function afterPlan(timeline: SubscriptionTimeline, plan: BillingPlan): SubscriptionTimeline {
  return {
    ...timeline,
    periodCount: plan.next.periodCount,
    nextRenewDate: plan.next.nextRenewDate,
    setupBilled: plan.next.setupBilled,
    anchorDate: plan.next.anchorDate,
    terms: plan.next.terms,
    pendingChange: plan.next.pendingChangeApplied ? null : timeline.pendingChange,
  };
}

/** [periodNo, start, end, kind, amountMinor] of each invoice's period. */
function periodsOf(invoices: readonly PlannedInvoice[]) {
  return invoices.map((invoice) =>
    invoice.period
      ? [
          invoice.period.periodNo,
          invoice.period.start,
          invoice.period.end,
          invoice.period.kind,
          invoice.period.amountMinor,
        ]
      : null,
  );
}

const termLine = (start: PlainDate, end: PlainDate, label = 'Gold (v1)', unitCostEx = '30.00') => ({
  descrip: label,
  qty: '1',
  unitCostEx,
  periodStart: start,
  periodEnd: end,
});

// Brackets 1–10 at 1.00, 11–20 at 0.80, 21+ at 0.50 (the example of pricing.ts).
const TIERED: Bracket[] = [
  { qtyFrom: '1', qtyTill: '10', price: '1.00' },
  { qtyFrom: '11', qtyTill: '20', price: '0.80' },
  { qtyFrom: '21', qtyTill: null, price: '0.50' },
];

const usageRow = (
  usageId: number,
  periodStart: PlainDate,
  periodEnd: PlainDate,
  units: string,
): UnbilledUsage => ({
  usageId,
  label: 'API calls',
  unitName: 'calls',
  periodStart,
  periodEnd,
  units,
  scheme: 'unit',
  brackets: TIERED,
});

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
    const later = planBilling(afterPlan(subscription(), plan), [], '2026-04-15');
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
      timeline = afterPlan(timeline, plan);
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
    const later = planBilling(afterPlan(timeline, plan), [], '2026-05-08');
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
    const later = planBilling(afterPlan(timeline, plan), [], '2026-04-15');
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
    expect(planBilling(afterPlan(timeline, plan), [], '2027-01-01').invoices).toEqual([]);
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
    const later = planBilling(afterPlan(timeline, plan), [], '2026-02-10');
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
    timeline = afterPlan(timeline, first);
    expect(timeline.pendingChange).not.toBeNull();
    const second = planBilling(timeline, [], '2026-03-15');
    expect(periodsOf(second.invoices)).toEqual([[3, '2026-03-15', '2026-04-15', 'term', 4500]]);
    expect(second.next.pendingChangeApplied).toBe(true);
  });

  it('bills usage in arrears on the first invoice dated on or after the usage period ends', () => {
    // 25 calls: 10 × 1.00 + 10 × 0.80 + 5 × 0.50 = 20.50
    const usage = [usageRow(7, '2026-01-15', '2026-02-15', '25')];
    const early = planBilling(subscription(), usage, '2026-01-20');
    expect(early.invoices).toHaveLength(1);
    expect(early.invoices[0]!.usageIds).toEqual([]); // the Jan 15 invoice is before the usage period ends
    expect(early.next.nextInvDate).toBe('2026-02-15');

    const plan = planBilling(subscription(), usage, '2026-03-01');
    expect(plan.invoices.map((i) => i.usageIds)).toEqual([[], [7]]);
    expect(plan.invoices[1]!.lines).toEqual([
      termLine('2026-02-15', '2026-03-15'),
      {
        descrip: 'API calls: 25 calls',
        qty: '1',
        unitCostEx: '20.5',
        periodStart: '2026-01-15',
        periodEnd: '2026-02-15',
      },
    ]);
    expect(priceInvoice(plan.invoices[1]!.lines, [], 'USD').exTotalMinor).toBe(5050); // 30.00 + 20.50
  });

  it('bills the usage left after the subscription ended on a last usage-only invoice', () => {
    // ends Mar 15 (a boundary): the Feb 15 invoice is before Feb 15–Mar 15 usage ends, so it waits for Mar 15.
    // 12 calls: 10 × 1.00 + 2 × 0.80 = 11.60
    const timeline = subscription({ endDate: '2026-03-15' });
    const usage = [
      usageRow(1, '2026-01-15', '2026-02-15', '5'),
      usageRow(2, '2026-02-15', '2026-03-15', '12'),
    ];

    const before = planBilling(timeline, usage, '2026-03-10');
    expect(periodsOf(before.invoices)).toEqual([
      [1, '2026-01-15', '2026-02-15', 'term', 3000],
      [2, '2026-02-15', '2026-03-15', 'term', 3000],
    ]);
    expect(before.invoices.map((i) => i.usageIds)).toEqual([[], [1]]);
    expect(before.next.nextInvDate).toBe('2026-03-15'); // still usage to bill

    const after = planBilling(afterPlan(timeline, before), [usage[1]!], '2026-03-15');
    expect(after.invoices).toEqual([
      {
        invoiceDate: '2026-03-15',
        lines: [
          {
            descrip: 'API calls: 12 calls',
            qty: '1',
            unitCostEx: '11.6',
            periodStart: '2026-02-15',
            periodEnd: '2026-03-15',
          },
        ],
        usageIds: [2],
        period: null,
      },
    ]);
    expect(after.next).toMatchObject({ nextInvDate: null, nextRenewDate: '2026-03-15', periodCount: 2 });

    // the same in one run
    const once = planBilling(timeline, usage, '2026-04-01');
    expect(once.invoices.map((i) => [i.invoiceDate, i.usageIds, i.period?.periodNo ?? null])).toEqual([
      ['2026-01-15', [], 1],
      ['2026-02-15', [1], 2],
      ['2026-03-15', [2], null],
    ]);
  });

  it('bills the last usage at the cancel date when its period runs past it', () => {
    const timeline = subscription({ cancelDate: '2026-02-20' });
    const usage = [usageRow(3, '2026-02-15', '2026-03-15', '1')];
    const plan = planBilling(timeline, usage, '2026-02-20');
    expect(plan.invoices.map((i) => [i.invoiceDate, i.usageIds, i.period?.periodNo ?? null])).toEqual([
      ['2026-01-15', [], 1],
      ['2026-02-15', [], 2],
      ['2026-02-20', [3], null],
    ]);
    expect(plan.next.nextInvDate).toBeNull();
  });

  it('dates the last usage-only invoice no earlier than creation and makes it only once that date comes', () => {
    // created Jan 20, cancelled Jan 12 before the Jan 15 start: no period, usage to Jan 10 left to bill
    const timeline = subscription({ createdOn: '2026-01-20', cancelDate: '2026-01-12' });
    const usage = [usageRow(4, '2025-12-10', '2026-01-10', '2')];
    const early = planBilling(timeline, usage, '2026-01-15');
    expect(early.invoices).toEqual([]);
    expect(early.next.nextInvDate).toBe('2026-01-20');
    const due = planBilling(timeline, usage, '2026-01-20');
    expect(due.invoices.map((i) => [i.invoiceDate, i.usageIds, i.period])).toEqual([
      ['2026-01-20', [4], null],
    ]);
    expect(due.next.nextInvDate).toBeNull();
  });

  it('makes at most 400 invoices per plan and continues with exactly the rest on the next call', () => {
    // daily from 2000-01-01 to 2002-01-01 inclusive: 366 + 365 + 1 = 732 periods
    const timeline = subscription({
      startDate: '2000-01-01',
      terms: { ...GOLD, term: { count: 1, unit: 'days' }, chargePrice: '1.00' },
    });
    const first = planBilling(timeline, [], '2002-01-01');
    expect(first.invoices).toHaveLength(MAX_INVOICES_PER_PLAN);
    expect(first.next).toMatchObject({
      periodCount: 400,
      nextRenewDate: '2001-02-04', // 2000-01-01 + 400 days
      nextInvDate: '2001-02-04', // already due: run again
    });
    const second = planBilling(afterPlan(timeline, first), [], '2002-01-01');
    expect(second.invoices).toHaveLength(332);
    expect(second.next).toMatchObject({
      periodCount: 732,
      nextRenewDate: '2002-01-02',
      nextInvDate: '2002-01-02',
    });
    const all = [...first.invoices, ...second.invoices];
    all.forEach((invoice, i) => {
      expect(invoice.period).toMatchObject({
        periodNo: i + 1,
        start: addDays('2000-01-01', i),
        end: addDays('2000-01-01', i + 1),
      });
    });
    expect(planBilling(afterPlan(afterPlan(timeline, first), second), [], '2002-01-01').invoices).toEqual([]);
  });

  it('keeps the last usage-only invoice within the 400 cap', () => {
    // daily for exactly 400 days to the EndDate, with usage ending then: 400 period invoices fill the plan,
    // the usage-only invoice comes on the next call
    const timeline = subscription({
      startDate: '2000-01-01',
      endDate: '2001-02-04',
      terms: { ...GOLD, term: { count: 1, unit: 'days' }, chargePrice: '1.00' },
    });
    const usage = [usageRow(9, '2001-01-04', '2001-02-04', '3')];
    const first = planBilling(timeline, usage, '2002-01-01');
    expect(first.invoices).toHaveLength(MAX_INVOICES_PER_PLAN);
    expect(first.invoices.every((i) => i.period !== null)).toBe(true);
    expect(first.next.nextInvDate).toBe('2001-02-04');
    const second = planBilling(afterPlan(timeline, first), usage, '2002-01-01');
    expect(second.invoices.map((i) => [i.invoiceDate, i.usageIds, i.period])).toEqual([
      ['2001-02-04', [9], null],
    ]);
    expect(second.next.nextInvDate).toBeNull();
  });

  describe('refuses a broken record with a BillingInvariantError', () => {
    it.each([
      ['a negative price', { chargePrice: '-1.00' }],
      ['a price with 5 decimals', { chargePrice: '1.23456' }],
      ['a price in exponent form', { chargePrice: '1e3' }],
      ['an empty price', { chargePrice: '' }],
      ['a bad setup fee', { setupFee: 'abc' }],
      ['a bad trial fee', { trialFee: '-0.5' }],
      ['a term of 0 months', { term: { count: 0, unit: 'months' } }],
      ['a fractional term', { term: { count: 1.5, unit: 'months' } }],
      ['a term in weeks', { term: { count: 1, unit: 'weeks' } }],
    ])('%s', (_name, override) => {
      const terms = { ...GOLD, ...override } as PriceTerms;
      expect(() => planBilling(subscription({ terms }), [], '2026-03-01')).toThrow(BillingInvariantError);
      const pendingChange = { effectiveDate: '2026-02-15', terms };
      expect(() => planBilling(subscription({ pendingChange }), [], '2026-03-01')).toThrow(
        BillingInvariantError,
      );
    });

    it('a next renewal off the billing cycle', () => {
      // anchored on Jan 15 monthly, so Feb 16 is no boundary
      const timeline = subscription({ periodCount: 1, nextRenewDate: '2026-02-16' });
      expect(() => planBilling(timeline, [], '2026-03-01')).toThrow(BillingInvariantError);
      expect(() => planBilling(timeline, [], '2026-03-01')).toThrow(/2026-02-16 is not on the billing cycle/);
    });

    it('a next renewal before the start', () => {
      const timeline = subscription({ periodCount: 1, nextRenewDate: '2026-01-14' });
      expect(() => planBilling(timeline, [], '2026-03-01')).toThrow(BillingInvariantError);
    });
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

describe('subscriptionStatus', () => {
  const base = { startDate: '2026-03-01', endDate: null, trialEndDate: null, cancelDate: null };
  it.each([
    ['Future', 'before the start', base, '2026-02-28'],
    [
      'Future',
      'before the start, cancellation scheduled later',
      { ...base, cancelDate: '2026-06-01' },
      '2026-02-28',
    ],
    ['Active', 'on the start', base, '2026-03-01'],
    ['Active', 'after the start', base, '2026-09-01'],
    ['Trial', 'on the start of a trial', { ...base, trialEndDate: '2026-03-08' }, '2026-03-01'],
    ['Trial', 'the last day of a trial', { ...base, trialEndDate: '2026-03-08' }, '2026-03-07'],
    ['Active', 'the day a trial ends', { ...base, trialEndDate: '2026-03-08' }, '2026-03-08'],
    ['Future', 'before a trial starts', { ...base, trialEndDate: '2026-03-08' }, '2026-02-28'],
    ['Active', 'before a scheduled cancellation', { ...base, cancelDate: '2026-06-01' }, '2026-05-31'],
    ['Cancelled', 'on the cancel date', { ...base, cancelDate: '2026-06-01' }, '2026-06-01'],
    ['Cancelled', 'after the cancel date', { ...base, cancelDate: '2026-06-01' }, '2026-07-01'],
    ['Cancelled', 'cancelled before it started', { ...base, cancelDate: '2026-02-01' }, '2026-02-15'],
    [
      'Cancelled',
      'cancelled during its trial',
      { ...base, trialEndDate: '2026-03-08', cancelDate: '2026-03-05' },
      '2026-03-06',
    ],
    ['Active', 'the day before the EndDate', { ...base, endDate: '2026-06-01' }, '2026-05-31'],
    ['Expired', 'on the EndDate', { ...base, endDate: '2026-06-01' }, '2026-06-01'],
    ['Expired', 'after the EndDate', { ...base, endDate: '2026-06-01' }, '2027-01-01'],
    [
      'Cancelled',
      'cancelled and past its EndDate',
      { ...base, endDate: '2026-06-01', cancelDate: '2026-05-01' },
      '2026-07-01',
    ],
  ])('is %s %s', (expected, _name, timeline, today) => {
    expect(subscriptionStatus(timeline, today)).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Properties over random subscriptions and random bill runs.

interface Scenario {
  timeline: SubscriptionTimeline;
  usage: UnbilledUsage[];
  /** Increasing days the bill run happens on; the last is the end of the story. */
  runDates: PlainDate[];
}

interface Run {
  invoices: PlannedInvoice[];
  timeline: SubscriptionTimeline;
  usage: UnbilledUsage[];
  lastPlan: BillingPlan;
  /** For each call: the day, how many invoices it made, the nextInvDate it reported. */
  calls: { today: PlainDate; made: number; nextInvDate: PlainDate | null }[];
}

const EPOCH = '2020-01-01';
const LAST_START = daysBetween(EPOCH, '2030-12-31');

/** A price with 0–4 decimals. */
const priceArb = fc
  .tuple(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 0, max: 4 }))
  .map(([units, decimals]) => {
    const text = String(units).padStart(decimals + 1, '0');
    return decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
  });

const termArb: fc.Arbitrary<Term> = fc.oneof(
  fc.integer({ min: 1, max: 3 }).map((count) => ({ count, unit: 'months' as const })),
  fc.integer({ min: 1, max: 30 }).map((count) => ({ count, unit: 'days' as const })),
);

const termsArb = (label: string): fc.Arbitrary<PriceTerms> =>
  fc.record({
    label: fc.constant(label),
    term: termArb,
    chargePrice: priceArb,
    setupFee: fc.oneof(fc.constant('0'), priceArb),
    trialFee: fc.oneof(fc.constant('0'), priceArb),
  });

const STORY_DAYS = 450;

/** null with probability 1 − p. */
const maybe = <T>(arb: fc.Arbitrary<T>, p = 0.5): fc.Arbitrary<T | null> =>
  fc.oneof(
    { arbitrary: fc.constant(null), weight: Math.round((1 - p) * 10) },
    { arbitrary: arb, weight: Math.round(p * 10) },
  );

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    start: fc.integer({ min: 0, max: LAST_START }),
    currencyCode: fc.constantFrom('USD', 'JPY', 'BHD'),
    terms: termsArb('Plan (v1)'),
    trial: maybe(
      fc.oneof(
        fc.record({ count: fc.integer({ min: 1, max: 30 }), unit: fc.constant('days') }),
        fc.record({ count: fc.integer({ min: 1, max: 2 }), unit: fc.constant('months') }),
      ),
    ),
    // as a fraction of the first term, so the sync date lies within it
    sync: maybe(fc.double({ min: 0, max: 1, noNaN: true })),
    isProRata: fc.boolean(),
    endOffset: maybe(fc.integer({ min: 1, max: STORY_DAYS })),
    cancelOffset: maybe(fc.integer({ min: -20, max: STORY_DAYS })),
    numDaysBeforeToInv: fc.integer({ min: 0, max: 10 }),
    createdOffset: fc.integer({ min: -30, max: 30 }),
    change: maybe(fc.record({ offset: fc.integer({ min: 0, max: 400 }), terms: termsArb('Plan (v2)') }), 0.3),
    usage: fc.array(
      fc.record({
        endOffset: fc.integer({ min: 0, max: STORY_DAYS }),
        units: fc.integer({ min: 0, max: 40 }),
      }),
      { maxLength: 4 },
    ),
    runOffsets: fc.uniqueArray(fc.integer({ min: -40, max: STORY_DAYS }), { maxLength: 12 }),
  })
  .map((r): Scenario => {
    const startDate = addDays(EPOCH, r.start);
    const trialEndDate = r.trial ? trialEndOf(startDate, r.trial.count, r.trial.unit) : null;
    const firstTermDays = daysBetween(startDate, boundary(startDate, r.terms.term, 1));
    const syncOffset = r.sync === null ? null : Math.max(1, Math.ceil(r.sync * firstTermDays));
    const timeline = subscription({
      currencyCode: r.currencyCode,
      startDate,
      anchorDate: startDate,
      createdOn: addDays(startDate, r.createdOffset),
      terms: r.terms,
      trialEndDate,
      isProRata: r.isProRata && syncOffset !== null,
      firstProrataSyncDate: syncOffset === null ? null : addDays(startDate, syncOffset),
      endDate: r.endOffset === null ? null : addDays(startDate, r.endOffset),
      cancelDate: r.cancelOffset === null ? null : addDays(startDate, r.cancelOffset),
      numDaysBeforeToInv: r.numDaysBeforeToInv,
      pendingChange: r.change
        ? { effectiveDate: addDays(startDate, r.change.offset), terms: r.change.terms }
        : null,
    });
    const usage = r.usage.map((u, i) => {
      const periodEnd = addDays(startDate, u.endOffset);
      return usageRow(i + 1, addDays(periodEnd, -30), periodEnd, String(u.units));
    });
    const end = STORY_DAYS + 20;
    const runDates = [...r.runOffsets.filter((o) => o < end), end]
      .sort((a, b) => a - b)
      .map((o) => addDays(startDate, o));
    return { timeline, usage, runDates };
  });

/** The bill run on each day given, carrying the record forward; repeats a day while a plan is capped. */
function runOn(scenario: Scenario, days: readonly PlainDate[]): Run {
  let timeline = scenario.timeline;
  let usage = scenario.usage;
  const invoices: PlannedInvoice[] = [];
  const calls: Run['calls'] = [];
  let lastPlan: BillingPlan | undefined;
  for (const today of days) {
    for (;;) {
      const plan = planBilling(timeline, usage, today);
      invoices.push(...plan.invoices);
      const billed = new Set(plan.invoices.flatMap((i) => i.usageIds));
      usage = usage.filter((u) => !billed.has(u.usageId));
      timeline = afterPlan(timeline, plan);
      calls.push({ today, made: plan.invoices.length, nextInvDate: plan.next.nextInvDate });
      lastPlan = plan;
      if (plan.invoices.length < MAX_INVOICES_PER_PLAN) break;
    }
  }
  return { invoices, timeline, usage, lastPlan: lastPlan!, calls };
}

function everyDay(from: PlainDate, to: PlainDate): PlainDate[] {
  const days: PlainDate[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

const stopOf = (timeline: SubscriptionTimeline): PlainDate | null =>
  [timeline.cancelDate, timeline.endDate].filter((d): d is PlainDate => d !== null).sort()[0] ?? null;

const isMonthly = (terms: PriceTerms) => terms.term.unit === 'months' && terms.term.count === 1;

/** The invariants one run's invoices must hold. */
function checkRun(scenario: Scenario, run: Run): void {
  const { timeline } = scenario;
  const finalDay = scenario.runDates[scenario.runDates.length - 1]!;
  const stop = stopOf(timeline);
  const periods = run.invoices.flatMap((i) => (i.period ? [i.period] : []));

  // tiling from the start: no gap, no overlap, numbered 1..n, nothing billed twice
  periods.forEach((period, i) => {
    expect(period.periodNo).toBe(i + 1);
    expect(period.start).toBe(i === 0 ? timeline.startDate : periods[i - 1]!.end);
    expect(period.end > period.start).toBe(true);
    if (stop !== null) expect(period.start < stop).toBe(true);
    if (timeline.endDate !== null) expect(period.end <= timeline.endDate).toBe(true);
  });
  expect(new Set(periods.map((p) => p.start)).size).toBe(periods.length);

  // everything due by the final day is billed, and the record says when to look again
  const next = run.lastPlan.next;
  const nextStart = periods.length > 0 ? periods[periods.length - 1]!.end : timeline.startDate;
  expect(run.timeline.nextRenewDate).toBe(periods.length > 0 ? nextStart : null);
  if (next.nextInvDate === null) {
    expect(stop !== null && nextStart >= stop).toBe(true);
    expect(run.usage).toEqual([]);
    expect(planBilling(run.timeline, run.usage, '2099-12-31').invoices).toEqual([]);
  } else {
    expect(next.nextInvDate > finalDay).toBe(true);
    expect(planBilling(run.timeline, run.usage, next.nextInvDate).invoices.length).toBeGreaterThan(0);
  }

  // invoice dates: numDaysBeforeToInv ahead of the period, never before creation, in order
  run.invoices.forEach((invoice, i) => {
    expect(invoice.invoiceDate >= timeline.createdOn).toBe(true);
    expect(invoice.invoiceDate <= finalDay).toBe(true);
    if (i > 0) expect(invoice.invoiceDate >= run.invoices[i - 1]!.invoiceDate).toBe(true);
    if (invoice.period) {
      expect(invoice.invoiceDate).toBe(
        maxDate(addDays(invoice.period.start, -timeline.numDaysBeforeToInv), timeline.createdOn),
      );
    }
  });
  // only the last invoice may be usage-only
  run.invoices.slice(0, -1).forEach((invoice) => expect(invoice.period).not.toBeNull());

  // amounts: non-negative integers; the period's line carries the period's amount
  const setupMinor = decimalToMinor(
    (periods[0]?.appliesPendingChange ? timeline.pendingChange!.terms : timeline.terms).setupFee,
    timeline.currencyCode,
  );
  run.invoices.forEach((invoice, i) => {
    const priced = priceInvoice(invoice.lines, [], timeline.currencyCode);
    for (const charge of priced.charges) {
      expect(Number.isSafeInteger(charge.amountExMinor) && charge.amountExMinor >= 0).toBe(true);
    }
    if (!invoice.period) return;
    const period = invoice.period;
    expect(Number.isSafeInteger(period.amountMinor) && period.amountMinor >= 0).toBe(true);
    const hasSetup = i === 0 && setupMinor !== 0;
    const periodLines = invoice.lines.length - (hasSetup ? 1 : 0) - invoice.usageIds.length;
    if (periodLines === 1) {
      const line = invoice.lines[hasSetup ? 1 : 0]!;
      expect([line.periodStart, line.periodEnd]).toEqual([period.start, period.end]);
      expect(productToMinor(line.qty, line.unitCostEx, timeline.currencyCode)).toBe(period.amountMinor);
    } else {
      // only a trial without a fee has no line
      expect(periodLines).toBe(0);
      expect([period.kind, period.amountMinor]).toEqual(['trial', 0]);
    }
    const fullMinor = decimalToMinor(period.chargePrice, timeline.currencyCode);
    if (period.kind === 'term' || period.kind === 'trial') expect(period.amountMinor).toBe(fullMinor);
    if (period.kind === 'stub' && timeline.pendingChange === null) {
      expect(period.amountMinor).toBeLessThanOrEqual(fullMinor);
    }
  });

  // the setup fee: exactly once when it is not zero, on the first invoice
  const setupLines = run.invoices.flatMap((invoice, i) =>
    invoice.lines.filter((line) => line.descrip.endsWith(': setup fee')).map(() => i),
  );
  expect(setupLines).toEqual(periods.length > 0 && setupMinor !== 0 ? [0] : []);

  // usage: each row billed once, on the first invoice dated on or after its end (or the last one at the stop)
  const billedIds = run.invoices.flatMap((i) => i.usageIds);
  expect(new Set(billedIds).size).toBe(billedIds.length);
  for (const row of scenario.usage) {
    const at = run.invoices.findIndex((i) => i.usageIds.includes(row.usageId));
    const firstOnOrAfter = run.invoices.findIndex((i) => i.period !== null && i.invoiceDate >= row.periodEnd);
    if (at === -1) {
      expect(firstOnOrAfter).toBe(-1);
      continue;
    }
    if (run.invoices[at]!.period) expect(at).toBe(firstOnOrAfter);
    else expect(firstOnOrAfter).toBe(-1);
  }
  const last = run.invoices[run.invoices.length - 1];
  if (last && last.period === null) {
    // dated when the last of its usage ends or billing stops, whichever is first
    const lastEnd = scenario.usage
      .filter((u) => last.usageIds.includes(u.usageId))
      .map((u) => u.periodEnd)
      .sort()
      .pop()!;
    expect(stop).not.toBeNull();
    expect(last.invoiceDate).toBe(maxDate(minDate(lastEnd, stop!), timeline.createdOn));
  }

  // the cycle: without a change, term periods are whole terms on the boundaries of one anchor
  const terms = periods.filter((p) => p.kind === 'term');
  if (timeline.pendingChange === null && terms.length > 0) {
    const anchor = terms[0]!.start;
    const { term } = timeline.terms;
    for (const period of terms) {
      const k = periodIndexAt(anchor, term, period.start);
      expect(boundary(anchor, term, k)).toBe(period.start);
      expect(boundary(anchor, term, k + 1)).toBe(period.end);
    }
  }

  // a monthly subscription never bills two periods starting in one calendar month, stubs and trials aside
  if (
    isMonthly(timeline.terms) &&
    (timeline.pendingChange === null || isMonthly(timeline.pendingChange.terms))
  ) {
    const months = terms.map((p) => p.start.slice(0, 7));
    expect(new Set(months).size).toBe(months.length);
  }
}

describe('planBilling over random subscriptions and bill runs', () => {
  it('holds every invariant and bills the same whether run once, on random days, or every day', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const finalDay = scenario.runDates[scenario.runDates.length - 1]!;
        const once = runOn(scenario, [finalDay]);
        const random = runOn(scenario, scenario.runDates);
        const firstDay = addDays(minDate(scenario.timeline.createdOn, scenario.timeline.startDate), -11);
        const daily = runOn(scenario, everyDay(firstDay, finalDay));

        checkRun(scenario, once);
        checkRun(scenario, random);
        checkRun(scenario, daily);
        expect(random.invoices).toEqual(once.invoices);
        expect(daily.invoices).toEqual(once.invoices);
        expect(daily.timeline).toEqual(once.timeline);

        // run every day, each invoice is made on its own date, on the day the previous run said to look again
        let expected: PlainDate | null = firstDay;
        let made = 0;
        for (const call of daily.calls) {
          if (call.made > 0) {
            expect(call.today).toBe(expected);
            daily.invoices
              .slice(made, made + call.made)
              .forEach((i) => expect(i.invoiceDate).toBe(call.today));
            made += call.made;
          }
          expected = call.nextInvDate;
          // a capped plan asks to run again at once; any other asks for a later day, or never
          if (expected !== null)
            expect(expected > call.today || call.made === MAX_INVOICES_PER_PLAN).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});
