import { describe, expect, it } from 'vitest';
import { afterPlan, GOLD, periodsOf, subscription, termLine } from './subscriptionBilling.fixtures.ts';
import { planBilling } from './subscriptionBilling.ts';
import type { PriceTerms } from './subscriptionBilling.ts';

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
    timeline = afterPlan(timeline, first);
    expect(timeline.pendingChange).not.toBeNull();
    const second = planBilling(timeline, [], '2026-03-15');
    expect(periodsOf(second.invoices)).toEqual([[3, '2026-03-15', '2026-04-15', 'term', 4500]]);
    expect(second.next.pendingChangeApplied).toBe(true);
  });
});
