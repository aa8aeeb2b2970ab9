import { describe, expect, it } from 'vitest';
import { addDays } from '../../core/calendar.ts';
import { GOLD, subscription, usageRow } from './subscriptionBilling.fixtures.ts';
import { MAX_INVOICES_PER_PLAN, planBilling } from './subscriptionBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import type { PriceTerms } from './subscriptionBilling.ts';
import { timelineAfter } from './subscriptionUpcoming.ts';

describe('planBilling', () => {
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
    const second = planBilling(timelineAfter(timeline, first), [], '2002-01-01');
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
    expect(
      planBilling(timelineAfter(timelineAfter(timeline, first), second), [], '2002-01-01').invoices,
    ).toEqual([]);
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
    const second = planBilling(timelineAfter(timeline, first), usage, '2002-01-01');
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
