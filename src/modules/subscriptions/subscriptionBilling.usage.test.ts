import { describe, expect, it } from 'vitest';
import { priceInvoice } from '../invoicing/index.ts';
import { periodsOf, subscription, termLine, usageRow } from './subscriptionBilling.fixtures.ts';
import { planBilling } from './subscriptionBilling.ts';
import { timelineAfter } from './subscriptionUpcoming.ts';

describe('planBilling', () => {
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
        descrip: 'API calls: 25 calls (10 at 1.00; 10 at 0.80; 5 at 0.50)',
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

    const after = planBilling(timelineAfter(timeline, before), [usage[1]!], '2026-03-15');
    expect(after.invoices).toEqual([
      {
        invoiceDate: '2026-03-15',
        lines: [
          {
            descrip: 'API calls: 12 calls (10 at 1.00; 2 at 0.80)',
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
});
