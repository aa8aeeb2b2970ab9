import { describe, expect, it } from 'vitest';
import { BillingInvariantError } from '../invoicing/index.ts';
import type { PriceTerms, SubscriptionTimeline } from './subscriptionBilling.ts';
import { usagePeriodAt } from './usagePeriods.ts';

const monthly: PriceTerms = {
  label: 'Gold (v1)',
  term: { count: 1, unit: 'months' },
  chargePrice: '30',
  setupFee: '0',
  trialFee: '0',
};

const timeline = (overrides: Partial<SubscriptionTimeline> = {}): SubscriptionTimeline => ({
  currencyCode: 'USD',
  startDate: '2026-01-15',
  endDate: null,
  trialEndDate: null,
  isProRata: false,
  firstProrataSyncDate: null,
  anchorDate: '2026-01-15',
  numDaysBeforeToInv: 0,
  createdOn: '2026-01-15',
  cancelDate: null,
  periodCount: 0,
  nextRenewDate: null,
  setupBilled: false,
  terms: monthly,
  pendingChange: null,
  ...overrides,
});

describe('usagePeriodAt', () => {
  it('is the first period before and on the start', () => {
    expect(usagePeriodAt(timeline(), null, '2025-12-01')).toEqual({ start: '2026-01-15', end: '2026-02-15' });
    expect(usagePeriodAt(timeline(), null, '2026-01-15')).toEqual({ start: '2026-01-15', end: '2026-02-15' });
  });

  it('walks whole terms from the anchor, clamping short months', () => {
    const t = timeline({ startDate: '2026-01-31', anchorDate: '2026-01-31' });
    expect(usagePeriodAt(t, null, '2026-03-01')).toEqual({ start: '2026-02-28', end: '2026-03-31' });
    expect(usagePeriodAt(t, null, '2027-01-30')).toEqual({ start: '2026-12-31', end: '2027-01-31' });
  });

  it('prefers the billed period holding the day, even when a later one was billed in advance', () => {
    const t = timeline({ nextRenewDate: '2026-03-15', periodCount: 2 });
    const billed = { start: '2026-01-15', end: '2026-02-15' };
    expect(usagePeriodAt(t, billed, '2026-02-10')).toEqual(billed);
  });

  it('continues from the next renewal when the day is past the billed periods', () => {
    const t = timeline({ nextRenewDate: '2026-02-15', periodCount: 1 });
    expect(usagePeriodAt(t, null, '2026-04-20')).toEqual({ start: '2026-04-15', end: '2026-05-15' });
  });

  it('has the trial as a period, then terms anchored on its end', () => {
    const t = timeline({ trialEndDate: '2026-01-29', anchorDate: '2026-01-29' });
    expect(usagePeriodAt(t, null, '2026-01-20')).toEqual({ start: '2026-01-15', end: '2026-01-29' });
    expect(usagePeriodAt(t, null, '2026-03-01')).toEqual({ start: '2026-02-28', end: '2026-03-29' });
  });

  it('has the pro-rata stub as a period, then terms anchored on the sync date', () => {
    const t = timeline({ isProRata: true, firstProrataSyncDate: '2026-02-01', anchorDate: '2026-02-01' });
    expect(usagePeriodAt(t, null, '2026-01-20')).toEqual({ start: '2026-01-15', end: '2026-02-01' });
    expect(usagePeriodAt(t, null, '2026-06-03')).toEqual({ start: '2026-06-01', end: '2026-07-01' });
  });

  it('cuts the last period at the EndDate and has none from it on', () => {
    const t = timeline({ endDate: '2026-03-01' });
    expect(usagePeriodAt(t, null, '2026-02-20')).toEqual({ start: '2026-02-15', end: '2026-03-01' });
    expect(usagePeriodAt(t, null, '2026-03-01')).toBeNull();
    expect(usagePeriodAt(timeline({ cancelDate: '2026-02-01' }), null, '2026-02-01')).toBeNull();
  });

  it('switches to a scheduled change at the first period starting on or after its date', () => {
    const change = {
      effectiveDate: '2026-04-15',
      terms: { ...monthly, term: { count: 10, unit: 'days' as const } },
    };
    const t = timeline({ pendingChange: change });
    expect(usagePeriodAt(t, null, '2026-04-10')).toEqual({ start: '2026-03-15', end: '2026-04-15' });
    expect(usagePeriodAt(t, null, '2026-04-26')).toEqual({ start: '2026-04-25', end: '2026-05-05' });
    const between = timeline({ pendingChange: { ...change, effectiveDate: '2026-04-01' } });
    expect(usagePeriodAt(between, null, '2026-04-20')).toEqual({ start: '2026-04-15', end: '2026-04-25' });
  });

  it('keeps the cycle through a scheduled change of price that keeps the term, as the bill run does', () => {
    // a month-end anchor: a same-term change effective Feb 28 does not start a cycle on the 28th
    const t = timeline({
      startDate: '2026-01-31',
      anchorDate: '2026-01-31',
      pendingChange: { effectiveDate: '2026-02-28', terms: { ...monthly, chargePrice: '40' } },
    });
    expect(usagePeriodAt(t, null, '2026-03-30')).toEqual({ start: '2026-02-28', end: '2026-03-31' });
    expect(usagePeriodAt(t, null, '2026-04-01')).toEqual({ start: '2026-03-31', end: '2026-04-30' });
  });

  it('finds the period of a daily subscription years on without walking day by day', () => {
    const t = timeline({ terms: { ...monthly, term: { count: 1, unit: 'days' } } });
    expect(usagePeriodAt(t, null, '2036-01-15')).toEqual({ start: '2036-01-15', end: '2036-01-16' });
  });

  it('walks from a change that kept a month-end anchor: its stub, then the 31st again', () => {
    // anchored Jan 31, changed Feb 10 and not billed yet (a held customer): Feb 10 – Feb 28, Feb 28 – Mar 31
    const t = timeline({
      startDate: '2026-01-31',
      anchorDate: '2026-01-31',
      periodCount: 1,
      nextRenewDate: '2026-02-10',
      offCycleStart: '2026-02-10',
    });
    expect(usagePeriodAt(t, null, '2026-02-12')).toEqual({ start: '2026-02-10', end: '2026-02-28' });
    expect(usagePeriodAt(t, null, '2026-03-30')).toEqual({ start: '2026-02-28', end: '2026-03-31' });
    expect(usagePeriodAt(t, null, '2026-04-30')).toEqual({ start: '2026-04-30', end: '2026-05-31' });
  });

  it('refuses a broken record', () => {
    const t = timeline({ terms: { ...monthly, term: { count: 0, unit: 'months' } } });
    expect(() => usagePeriodAt(t, null, '2026-03-01')).toThrow(BillingInvariantError);
    const offCycle = timeline({ nextRenewDate: '2026-02-20', periodCount: 1 });
    expect(() => usagePeriodAt(offCycle, null, '2026-03-01')).toThrow(BillingInvariantError);
  });
});
