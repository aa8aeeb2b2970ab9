import { describe, expect, it } from 'vitest';
import {
  collectionPeriod,
  collectionTermsProblem,
  escalatedMinor,
  escalationYears,
  firstCollectionDate,
  instalmentOn,
  mandatedActionDate,
  mayCollectTogether,
  onSchedule,
  periodOfActionDate,
  plannedActionDate,
  scheduledDateOf,
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

describe('the action date a mandate allows', () => {
  // A mandate on the 25th from Christmas Day 2026, a Friday and a public holiday.
  const onThe25th = monthly({ startDate: '2026-12-25' });

  it('moves 25 December off the holiday and the weekend to Monday the 28th, never before the start', () => {
    // 25 Dec (Fri, Christmas) → 26 (Sat, Day of Goodwill) → 27 (Sun) → 28 (Mon).
    expect(mandatedActionDate(onThe25th, '2026-12-03')).toBe('2026-12-28');
    expect(mandatedActionDate(onThe25th, '2026-12-27')).toBe('2026-12-28');
    expect(mandatedActionDate(onThe25th, '2026-12-29')).toBe('2027-01-25');
  });

  it('moves a Sunday 25th to the Monday, and past a Monday holiday to the Tuesday', () => {
    // 25 Apr 2027 is a Sunday; 25 Dec 2027 a Saturday, 26 a Sunday and 27 the Monday holiday it gives.
    expect(mandatedActionDate(onThe25th, '2027-04-01')).toBe('2027-04-26');
    expect(mandatedActionDate(onThe25th, '2027-12-01')).toBe('2027-12-28');
  });

  it('never answers a weekend or a public holiday', () => {
    for (let month = 1; month <= 12; month += 1) {
      const from = `2027-${String(month).padStart(2, '0')}-01`;
      const date = mandatedActionDate(onThe25th, from)!;
      expect(date.slice(0, 7)).toBe(from.slice(0, 7));
      expect(scheduledDateOf(onThe25th, date)?.slice(8)).toBe('25');
    }
  });

  it('allows none after the mandate’s end', () => {
    expect(mandatedActionDate({ ...onThe25th, endDate: '2027-02-01' }, '2027-01-26')).toBeUndefined();
  });

  it('reads a moved date back as the scheduled date it stands for', () => {
    expect(scheduledDateOf(onThe25th, '2026-12-28')).toBe('2026-12-25');
    expect(scheduledDateOf(onThe25th, '2027-01-25')).toBe('2027-01-25');
    expect(scheduledDateOf(onThe25th, '2026-12-29')).toBeUndefined();
  });
});

describe('the planned action date of a debit', () => {
  const onThe25th = monthly({ startDate: '2026-12-25' });
  const mandate = (status: string, terms = onThe25th) => ({ contractRef: 'CR-1', status, terms });

  it("is the mandate's day on or after the due date, off the Christmas holidays, past the lead time", () => {
    // Due Saturday 28 November 2026; the mandate's first day, Christmas, moves past the Day of Goodwill weekend.
    expect(plannedActionDate('debit_order', '2026-11-28', '2026-11-27', mandate('signed'))).toEqual({
      actionDate: '2026-12-28',
    });
    // Asked for the 23rd of December on the 22nd: two business days ahead is the 24th, so the 28th still.
    expect(plannedActionDate('debit_order', '2026-12-23', '2026-12-22', mandate('signed'))).toEqual({
      actionDate: '2026-12-28',
    });
  });

  it('is the due date on a business day without a mandate, never inside the lead time', () => {
    expect(plannedActionDate('debit_order', '2026-12-25', '2026-12-01', undefined)).toEqual({
      actionDate: '2026-12-28',
    });
    // Due today (Friday 27 November 2026): two business days on, Tuesday 1 December.
    expect(plannedActionDate('debit_order', '2026-11-27', '2026-11-27', undefined)).toEqual({
      actionDate: '2026-12-01',
    });
  });

  it('says why a mandate allows no debit', () => {
    expect(plannedActionDate('debit_order', '2026-12-01', '2026-11-27', mandate('pending'))).toEqual({
      problem: 'eMandate CR-1 is pending, not signed',
    });
    const ended = mandate('signed', monthly({ startDate: '2026-12-25', endDate: '2027-01-31' }));
    expect(plannedActionDate('debit_order', '2027-02-01', '2026-11-27', ended)).toEqual({
      problem: 'eMandate CR-1 allows no collection on or after 2027-02-01 (it ends on 2027-01-31)',
    });
  });
});

describe('one debit carrying more than a period’s instalment (docs/gateways.md, "Months that stay in step")', () => {
  it('counts an action date moved off a weekend in the period of the day it was moved from', () => {
    // The 25th of September 2027 is a Saturday: collected on Monday the 27th, still September's.
    expect(periodOfActionDate(monthly(), '2027-09-27')).toBe(periodOfActionDate(monthly(), '2027-09-25'));
    expect(periodOfActionDate(monthly({ frequency: 'AdHoc' }), '2027-09-27')).toBeUndefined();
  });

  it('takes a total within the maximum only under a mandate for variable amounts', () => {
    expect(mayCollectTogether(monthly({ variableAmounts: true }), '2027-03-25', 15_000)).toBe(true);
    expect(mayCollectTogether(monthly({ variableAmounts: true }), '2027-03-25', 15_001)).toBe(false);
    expect(mayCollectTogether(monthly(), '2027-03-25', 10_000)).toBe(false);
  });

  it('escalates the instalment and the maximum on each anniversary of the start date', () => {
    const escalating = monthly({ variableAmounts: true, escalation: '10' });
    expect(instalmentOn(escalating, '2028-01-25')).toBe(11_000);
    expect(mayCollectTogether(escalating, '2028-01-25', 16_500)).toBe(true);
    expect(mayCollectTogether(escalating, '2027-11-25', 16_500)).toBe(false);
  });
});
