import { describe, expect, it } from 'vitest';
import {
  collectionPeriod,
  collectionTermsProblem,
  escalatedMinor,
  escalationYears,
  firstCollectionDate,
  onSchedule,
} from './mandateChecks.ts';
import type { MandateTerms } from './mandateChecks.ts';

const monthly = (fields: Partial<MandateTerms> = {}): MandateTerms => ({
  currencyCode: 'ZAR',
  frequency: 'Monthly',
  actionDay: 25,
  startDate: '2027-01-10',
  endDate: null,
  amountMinor: 10_000,
  maxAmountMinor: 15_000,
  escalation: null,
  variableAmounts: false,
  ...fields,
});

const collect = (actionDate: string, amountMinor = 10_000, currencyCode = 'ZAR') => ({
  actionDate,
  amountMinor,
  currencyCode,
});

describe('the schedule of a mandate', () => {
  it('collects monthly on the action day, from the first one on or after the start date', () => {
    expect(firstCollectionDate(monthly())).toBe('2027-01-25');
    expect(onSchedule(monthly(), '2027-02-25')).toBe(true);
    expect(onSchedule(monthly(), '2027-02-24')).toBe(false);
  });

  it('takes 99, or a day the month lacks, as the month’s last day', () => {
    expect(onSchedule(monthly({ actionDay: 99 }), '2027-02-28')).toBe(true);
    expect(onSchedule(monthly({ actionDay: 31 }), '2027-04-30')).toBe(true);
    expect(onSchedule(monthly({ actionDay: 31 }), '2027-05-30')).toBe(false);
    expect(onSchedule(monthly({ actionDay: 30 }), '2028-02-29')).toBe(true);
  });

  it('counts quarters from the first collection’s month', () => {
    const quarterly = monthly({ frequency: 'Quarterly', actionDay: 5 });
    expect(firstCollectionDate(quarterly)).toBe('2027-02-05');
    expect(onSchedule(quarterly, '2027-05-05')).toBe(true);
    expect(onSchedule(quarterly, '2027-04-05')).toBe(false);
    expect(collectionPeriod(quarterly, '2027-04-05')).toBe(0);
    expect(collectionPeriod(quarterly, '2027-05-05')).toBe(1);
  });

  it('collects weekly on the weekday and fortnightly every second one', () => {
    // 2027-01-10 is a Sunday; the first Wednesday (3) on or after it is 2027-01-13.
    const fortnightly = monthly({ frequency: 'Fortnightly', actionDay: 3 });
    expect(firstCollectionDate(fortnightly)).toBe('2027-01-13');
    expect(onSchedule(fortnightly, '2027-01-27')).toBe(true);
    expect(onSchedule(fortnightly, '2027-01-20')).toBe(false);
    expect(onSchedule({ ...fortnightly, frequency: 'Weekly' }, '2027-01-20')).toBe(true);
  });

  it('has no schedule or periods when ad hoc', () => {
    const adHoc = monthly({ frequency: 'AdHoc' });
    expect(onSchedule(adHoc, '2027-03-03')).toBe(true);
    expect(collectionPeriod(adHoc, '2027-03-03')).toBeUndefined();
  });
});

describe('escalation', () => {
  it('counts whole years from the start date', () => {
    expect(escalationYears(monthly(), '2028-01-09')).toBe(0);
    expect(escalationYears(monthly(), '2028-01-10')).toBe(1);
    expect(escalationYears(monthly(), '2030-01-25')).toBe(3);
  });

  it('compounds, each year rounded to the minor unit', () => {
    // 299.99 + 5% = 314.9895 → 314.99; + 5% = 330.7395 → 330.74.
    expect(escalatedMinor(29_999, '5', 2)).toBe(33_074);
    expect(escalatedMinor(10_000, '7.25', 1)).toBe(10_725);
    expect(escalatedMinor(10_000, null, 5)).toBe(10_000);
  });
});

describe('a collection against the terms', () => {
  it('passes on schedule with the instalment', () => {
    expect(collectionTermsProblem(monthly(), collect('2027-02-25'), undefined)).toBeUndefined();
  });

  it('names the rule it breaks', () => {
    expect(collectionTermsProblem(monthly(), collect('2027-02-25', 10_000, 'EUR'), undefined)).toMatch(
      /collects in ZAR/,
    );
    expect(collectionTermsProblem(monthly(), collect('2026-12-25'), undefined)).toMatch(/before the mandate/);
    expect(
      collectionTermsProblem(monthly({ endDate: '2027-06-30' }), collect('2027-07-25'), undefined),
    ).toMatch(/after the mandate's end date/);
    expect(collectionTermsProblem(monthly(), collect('2027-02-24'), undefined)).toMatch(/not on the/);
    expect(collectionTermsProblem(monthly(), collect('2027-02-25', 10_001), undefined)).toMatch(
      /not the fixed mandate's instalment 10000/,
    );
    expect(
      collectionTermsProblem(monthly({ variableAmounts: true }), collect('2027-02-25', 15_001), undefined),
    ).toMatch(/more than the mandate's maximum 15000/);
    expect(collectionTermsProblem(monthly(), collect('2027-02-25'), '2027-02-25')).toMatch(
      /same Monthly period/,
    );
  });

  it('allows the escalated instalment and maximum after an anniversary', () => {
    const terms = monthly({ escalation: '10', variableAmounts: true });
    expect(collectionTermsProblem(terms, collect('2028-01-25', 16_500), undefined)).toBeUndefined();
    expect(collectionTermsProblem(terms, collect('2027-12-25', 16_500), undefined)).toMatch(/maximum 15000/);
  });
});
