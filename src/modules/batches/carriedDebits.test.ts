import { describe, expect, it } from 'vitest';
import { lastSubmitDate } from '../../core/bankingDays.ts';
import type { MandateTerms } from '../mandates/index.ts';
import { bundlingHorizon, submissionNoticeDate } from './batchRules.ts';
import { carryDebit, isCarried, meetInPeriod, staysInPeriod } from './carriedDebits.ts';

// docs/gateways.md, "Months that stay in step": a monthly mandate on the 10th from January 2027. The 10th is a
// Sunday in January, April, July and October 2027 (a Saturday in April and July): those months collect on the
// Monday after.

const monthly = (fields: Partial<MandateTerms> = {}): MandateTerms => ({
  currencyCode: 'ZAR',
  frequency: 'Monthly',
  actionDay: 10,
  startDate: '2027-01-01',
  endDate: null,
  amountMinor: 25_000,
  maxAmountMinor: 60_000,
  escalation: null,
  variableAmounts: true,
  ...fields,
});

describe('a debit carried past its own date', () => {
  it('is one planned in a later period than the first date its mandate allows from its due date', () => {
    expect(isCarried(monthly(), '2027-02-10', '2027-03-10')).toBe(true);
    expect(isCarried(monthly(), '2027-02-10', '2027-02-10')).toBe(false);
    // Due on a Sunday, collected on the Monday after: its own date, in its own period.
    expect(isCarried(monthly(), '2027-01-10', '2027-01-11')).toBe(false);
    // Due after the month's date: its own date is next month's.
    expect(isCarried(monthly(), '2027-05-11', '2027-06-10')).toBe(false);
  });

  it('is never one without a mandate or under an ad hoc one: nothing counts periods there', () => {
    expect(isCarried(undefined, '2027-02-10', '2027-03-10')).toBe(false);
    expect(isCarried(monthly({ frequency: 'AdHoc' }), '2027-02-10', '2027-03-10')).toBe(false);
  });
});

describe('how a debit that missed its date is collected', () => {
  it('goes with the next date’s own debit when the mandate takes variable amounts and the total is within its maximum', () => {
    // R250 instalment + R250 returned = R500 ≤ R600.
    expect(carryDebit(monthly(), '2027-03-10', 25_000, true)).toEqual({
      way: 'together',
      actionDate: '2027-03-10',
    });
    expect(carryDebit(monthly(), '2027-03-10', 35_000, true)).toEqual({
      way: 'together',
      actionDate: '2027-03-10',
    });
  });

  it('goes to the customer when the total is over the maximum, or the mandate is for a fixed amount', () => {
    // R250 + R350.01 = R600.01 > R600.
    expect(carryDebit(monthly(), '2027-03-10', 35_001, true)).toEqual({
      way: 'customer',
      actionDate: '2027-03-10',
    });
    expect(carryDebit(monthly({ variableAmounts: false }), '2027-03-10', 25_000, true)).toEqual({
      way: 'customer',
      actionDate: '2027-03-10',
    });
  });

  it('counts escalation in the instalment and the maximum from the first anniversary', () => {
    // From 1 January 2028, 10% more: instalment R275, maximum R660; R275 + R385 = R660.
    const escalating = monthly({ escalation: '10' });
    expect(carryDebit(escalating, '2028-02-10', 38_500, true).way).toBe('together');
    expect(carryDebit(escalating, '2028-02-10', 38_501, true).way).toBe('customer');
    // Before it, R250 + R385 > R600.
    expect(carryDebit(escalating, '2027-12-10', 38_500, true).way).toBe('customer');
  });

  it('goes alone without a mandate, or under an ad hoc one', () => {
    expect(carryDebit(undefined, '2027-03-12', 25_000, true)).toEqual({
      way: 'alone',
      actionDate: '2027-03-12',
    });
    expect(carryDebit(monthly({ frequency: 'AdHoc' }), '2027-02-17', 25_000, true).way).toBe('alone');
  });

  it('goes alone when no debit of its own is expected in that period: it takes no invoice’s place', () => {
    expect(carryDebit(monthly({ variableAmounts: false }), '2027-03-10', 25_000, false)).toEqual({
      way: 'alone',
      actionDate: '2027-03-10',
    });
    expect(carryDebit(monthly(), '2027-03-10', 25_000, false).way).toBe('alone');
  });
});

describe('a line of a batch submitted after its last safe day', () => {
  it('stays only when its mandate allows a date in the period of the batch’s own', () => {
    expect(staysInPeriod(monthly(), '2027-05-10', '2027-06-10')).toBe(false);
    // The April date moved off Saturday the 10th to Monday the 12th still counts in April.
    expect(staysInPeriod(monthly(), '2027-04-12', '2027-04-12')).toBe(true);
    expect(staysInPeriod(monthly(), '2027-04-12', '2027-05-10')).toBe(false);
  });

  it('stays on any date without a mandate or under an ad hoc one', () => {
    expect(staysInPeriod(undefined, '2027-05-10', '2027-05-12')).toBe(true);
    expect(staysInPeriod(monthly({ frequency: 'AdHoc' }), '2027-05-10', '2027-05-12')).toBe(true);
  });

  it('stays in a weekly period only on that week’s day', () => {
    // Wednesdays from 6 January 2027.
    const weekly = monthly({ frequency: 'Weekly', actionDay: 3 });
    expect(staysInPeriod(weekly, '2027-05-12', '2027-05-19')).toBe(false);
  });
});

describe('two debits of one bank account in one period', () => {
  const own = (amountMinor: number) => ({ amountMinor, carried: false });
  const carried = (amountMinor: number) => ({ amountMinor, carried: true });

  it('become one debit when the mandate allows the total', () => {
    expect(meetInPeriod(monthly(), '2027-03-10', carried(25_000), own(25_000))).toBe('together');
    expect(meetInPeriod(monthly(), '2027-03-10', own(25_000), own(25_000))).toBe('together');
  });

  it('leave the invoice’s own debit in place when it does not: the carried one gives way', () => {
    expect(meetInPeriod(monthly(), '2027-03-10', own(40_000), carried(25_000))).toBe('incoming_leaves');
    expect(meetInPeriod(monthly(), '2027-03-10', carried(25_000), own(40_000))).toBe('existing_leaves');
    expect(
      meetInPeriod(monthly({ variableAmounts: false }), '2027-03-10', carried(25_000), own(25_000)),
    ).toBe('existing_leaves');
  });

  it('both stay when each is its own invoice’s debit (the build refuses the second, as before)', () => {
    expect(meetInPeriod(monthly(), '2027-03-10', own(40_000), own(40_000))).toBe('both_stay');
  });
});

describe("the staff's notice of a batch", () => {
  it('comes two business days before the last safe day', () => {
    // Monday 10 May 2027: last safe day Thursday 6 May, notice Tuesday 4 May.
    expect(lastSubmitDate('debit_order', '2027-05-10')).toBe('2027-05-06');
    expect(submissionNoticeDate('debit_order', '2027-05-10')).toBe('2027-05-04');
    // Wednesday 28 April 2027, after Freedom Day (Tuesday 27th): last safe day Friday 23rd, notice Wednesday 21st.
    expect(lastSubmitDate('debit_order', '2027-04-28')).toBe('2027-04-23');
    expect(submissionNoticeDate('debit_order', '2027-04-28')).toBe('2027-04-21');
  });

  it('finds the batch made: the run bundles as far ahead as the notice day needs', () => {
    expect(bundlingHorizon('debit_order', '2027-05-04')).toBe('2027-05-10');
    expect(bundlingHorizon('debit_order', '2027-04-21')).toBe('2027-04-28');
    expect(bundlingHorizon('sepa', '2027-05-04')).toBe('2027-05-07');
  });
});
