import { describe, expect, it } from 'vitest';
import {
  billCycleDateFrom,
  billCycleDateIn,
  changeBillCycle,
  cycleAnchorThrough,
  firstBillCycleSync,
  moveBillCycle,
  wholeTermEndingAt,
} from './billCycleDay.ts';
import { isBillCycleDay } from '../../core/billCycleDayInput.ts';
import { MONTHLY, movedAfterBilling, onDay, periodsUpTo } from './billCycleDay.fixtures.ts';
import { boundary } from '../../core/periods.ts';
import { subscription } from './subscriptionBilling.fixtures.ts';

const QUARTERLY = { count: 3, unit: 'months' } as const;
const YEARLY = { count: 12, unit: 'months' } as const;
const THIRTY_DAYS = { count: 30, unit: 'days' } as const;

describe('bill-cycle-day dates', () => {
  it.each([
    // [date, day, the day-date of its month]
    ['2026-01-20', 1, '2026-01-01'],
    ['2026-02-10', 31, '2026-02-28'], // February 2026 has 28 days
    ['2028-02-10', 30, '2028-02-29'], // 2028 is a leap year
    ['2026-04-05', 31, '2026-04-30'],
    ['2026-03-05', 31, '2026-03-31'],
  ])('the day-date of the month of %s for day %i is %s', (date, day, expected) => {
    expect(billCycleDateIn(date, day)).toBe(expected);
  });

  it.each([
    // [from, day, the first day-date on or after it]
    ['2026-01-20', 1, '2026-02-01'],
    ['2026-01-01', 1, '2026-01-01'],
    ['2026-02-10', 31, '2026-02-28'],
    ['2026-02-28', 31, '2026-02-28'],
    ['2026-03-01', 31, '2026-03-31'],
    ['2026-12-20', 15, '2027-01-15'],
  ])('from %s the first day-%i date is %s', (from, day, expected) => {
    expect(billCycleDateFrom(from, day)).toBe(expected);
  });

  it('accepts the days 1 to 31 only, as whole numbers', () => {
    expect([0, 1, 15, 31, 32, 1.5, '1', null].map(isBillCycleDay)).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('cycleAnchorThrough: days 29 to 31 return after a short month', () => {
  it.each([
    // [a date on the cycle, day, term, the anchor, boundaries 1..3 after the anchor]
    ['2026-02-28', 31, MONTHLY, '2026-01-31', ['2026-02-28', '2026-03-31', '2026-04-30']],
    ['2026-04-30', 31, MONTHLY, '2026-03-31', ['2026-04-30', '2026-05-31', '2026-06-30']],
    ['2026-02-28', 30, MONTHLY, '2026-01-30', ['2026-02-28', '2026-03-30', '2026-04-30']],
    ['2026-03-15', 15, MONTHLY, '2026-03-15', ['2026-04-15', '2026-05-15', '2026-06-15']],
    // Quarterly on the 31st through Feb 28: Aug 31 + 6 months (Nov has no 31st).
    ['2026-02-28', 31, QUARTERLY, '2025-08-31', ['2025-11-30', '2026-02-28', '2026-05-31']],
    // Yearly on Feb 29 through Feb 28, 2027: Feb 29, 2024 + 3 years.
    ['2027-02-28', 29, YEARLY, '2024-02-29', ['2025-02-28', '2026-02-28', '2027-02-28']],
  ])('%s on day %i (%o) is counted from %s', (onCycle, day, term, anchor, boundaries) => {
    expect(cycleAnchorThrough(onCycle, day, term)).toBe(anchor);
    expect([1, 2, 3].map((k) => boundary(anchor, term, k))).toEqual(boundaries);
  });

  it('leaves a date off the day, and any date of a term of days, as it is', () => {
    expect(cycleAnchorThrough('2026-02-27', 31, MONTHLY)).toBe('2026-02-27');
    expect(cycleAnchorThrough('2026-02-28', 31, THIRTY_DAYS)).toBe('2026-02-28');
  });

  it('finds the whole term ending on a short month: Jan 31–Feb 28 for day 31, Jan 28–Feb 28 without a day', () => {
    expect(wholeTermEndingAt('2026-02-28', MONTHLY, 31)).toBe('2026-01-31');
    expect(wholeTermEndingAt('2026-02-28', MONTHLY, null)).toBe('2026-01-28');
    expect(wholeTermEndingAt('2026-02-01', QUARTERLY, 1)).toBe('2025-11-01');
  });
});

describe('a new subscription renews on the bill-cycle day', () => {
  it.each([
    // [name, start, day, term, the first stub's end]
    ['a stub to the next 1st', '2026-01-20', 1, MONTHLY, '2026-02-01'],
    ['no stub when the start falls on the day', '2026-01-15', 15, MONTHLY, null],
    ['no stub on Feb 28 for day 31', '2026-02-28', 31, MONTHLY, null],
    ['a stub to Feb 28 for day 31', '2026-02-10', 31, MONTHLY, '2026-02-28'],
    ['quarterly: the stub is less than a month', '2026-01-20', 1, QUARTERLY, '2026-02-01'],
    ['a term of days ignores the day', '2026-01-20', 1, THIRTY_DAYS, null],
  ])('%s', (_name, start, day, term, sync) => {
    expect(firstBillCycleSync(start, day, term)).toBe(sync);
  });

  it('30.00 a month from Jan 20 on the 1st: a stub of 12/31, then whole months on the 1st', () => {
    expect(periodsUpTo(onDay('2026-01-20', 1), '2026-03-01')).toEqual([
      // Jan 20–Feb 1 over Jan 1–Feb 1 (31 days): 30.00 × 12 / 31 = 11.612… → 11.61
      ['2026-01-20', '2026-02-01', 'stub', 1161],
      ['2026-02-01', '2026-03-01', 'term', 3000],
      ['2026-03-01', '2026-04-01', 'term', 3000],
    ]);
  });

  it('28.00 a month from Feb 10 on the 31st: a stub to Feb 28 over its 28 days, then the 31st again', () => {
    expect(periodsUpTo(onDay('2026-02-10', 31, { price: '28.00' }), '2026-04-30')).toEqual([
      // Feb 10–Feb 28 over Jan 31–Feb 28 (28 days): 28.00 × 18 / 28 = 18.00
      ['2026-02-10', '2026-02-28', 'stub', 1800],
      ['2026-02-28', '2026-03-31', 'term', 2800],
      ['2026-03-31', '2026-04-30', 'term', 2800],
      ['2026-04-30', '2026-05-31', 'term', 2800],
    ]);
  });

  it('from Feb 28 on the 30th: no stub, then Mar 30 and Apr 30', () => {
    expect(periodsUpTo(onDay('2026-02-28', 30), '2026-03-30')).toEqual([
      ['2026-02-28', '2026-03-30', 'term', 3000],
      ['2026-03-30', '2026-04-30', 'term', 3000],
    ]);
  });

  it('on the 29th in a common year: a stub to Feb 28 over Jan 29–Feb 28 (30 days)', () => {
    expect(periodsUpTo(onDay('2027-02-10', 29), '2027-03-29')).toEqual([
      // Feb 10–Feb 28, 18 of the 30 days of Jan 29–Feb 28: 30.00 × 18 / 30 = 18.00
      ['2027-02-10', '2027-02-28', 'stub', 1800],
      ['2027-02-28', '2027-03-29', 'term', 3000],
      ['2027-03-29', '2027-04-29', 'term', 3000],
    ]);
  });

  it('90.00 a quarter from Jan 20 on the 1st: the stub over the quarter Nov 1–Feb 1', () => {
    expect(periodsUpTo(onDay('2026-01-20', 1, { price: '90.00', term: QUARTERLY }), '2026-02-01')).toEqual([
      // Nov 1–Feb 1 is 30 + 31 + 31 = 92 days; Jan 20–Feb 1 is 12: 90.00 × 12 / 92 = 11.739… → 11.74
      ['2026-01-20', '2026-02-01', 'stub', 1174],
      ['2026-02-01', '2026-05-01', 'term', 9000],
    ]);
  });

  it('with a 14-day trial from Mar 1 on the 1st: the trial, then a stub from its end to Apr 1', () => {
    const timeline = onDay('2026-03-01', 1, { trialEndDate: '2026-03-15' });
    expect(periodsUpTo(timeline, '2026-04-01')).toEqual([
      ['2026-03-01', '2026-03-15', 'trial', 0],
      // Mar 15–Apr 1 over Mar 1–Apr 1 (31 days): 30.00 × 17 / 31 = 16.451… → 16.45
      ['2026-03-15', '2026-04-01', 'stub', 1645],
      ['2026-04-01', '2026-05-01', 'term', 3000],
    ]);
  });

  it('a term of days renews every 30 days from the start, whatever the day', () => {
    const timeline = onDay('2026-01-20', 1, { term: THIRTY_DAYS });
    expect(periodsUpTo(timeline, '2026-02-19')).toEqual([
      ['2026-01-20', '2026-02-19', 'term', 3000],
      ['2026-02-19', '2026-03-21', 'term', 3000],
    ]);
  });

  it('without a bill-cycle day nothing changes: the explicit sync date of Feb 28 anchors on the 28th', () => {
    const timeline = subscription({
      startDate: '2026-02-10',
      createdOn: '2026-02-10',
      isProRata: true,
      firstProrataSyncDate: '2026-02-28',
      anchorDate: '2026-02-28',
    });
    expect(periodsUpTo(timeline, '2026-03-28')).toEqual([
      // Jan 28–Feb 28 is 31 days: 30.00 × 18 / 31 = 17.419… → 17.42
      ['2026-02-10', '2026-02-28', 'stub', 1742],
      ['2026-02-28', '2026-03-28', 'term', 3000],
      ['2026-03-28', '2026-04-28', 'term', 3000],
    ]);
  });
});

describe('a scheduled change to another length of term on a bill-cycle day', () => {
  it('keeps the day: monthly on the 31st, quarterly from Feb 28 renews on May 31 and Aug 31', () => {
    const timeline = {
      ...onDay('2026-01-31', 31, { price: '28.00' }),
      pendingChange: {
        effectiveDate: '2026-02-28',
        terms: { label: 'Gold (v2)', term: QUARTERLY, chargePrice: '90.00', setupFee: '0', trialFee: '0' },
      },
    };
    expect(periodsUpTo(timeline, '2026-05-31')).toEqual([
      ['2026-01-31', '2026-02-28', 'term', 2800],
      // The quarter counted from Aug 31, 2025: Feb 28 (clamped), May 31, Aug 31.
      ['2026-02-28', '2026-05-31', 'term', 9000],
      ['2026-05-31', '2026-08-31', 'term', 9000],
    ]);
  });
});

describe('moving an existing subscription to another day', () => {
  it('30.00 on the 1st billed to Apr 1, moved to the 15th: a stub Apr 1–Apr 15 over Mar 15–Apr 15', () => {
    const moved = movedAfterBilling(onDay('2026-01-01', 1), '2026-03-01', 15);
    expect([moved.nextRenewDate, moved.offCycleStart, moved.anchorDate]).toEqual([
      '2026-04-01',
      '2026-04-01',
      '2026-04-15',
    ]);
    expect(periodsUpTo(moved, '2026-05-15')).toEqual([
      // Mar 15–Apr 15 is 31 days, Apr 1–Apr 15 is 14 of them: 30.00 × 14 / 31 = 13.548… → 13.55
      ['2026-04-01', '2026-04-15', 'stub', 1355],
      ['2026-04-15', '2026-05-15', 'term', 3000],
      ['2026-05-15', '2026-06-15', 'term', 3000],
    ]);
  });

  it('billed to Feb 1, moved to the 31st: a stub to Feb 28 over Jan 31–Feb 28, then the 31st', () => {
    const moved = movedAfterBilling(onDay('2026-01-01', 1), '2026-01-01', 31);
    expect(periodsUpTo(moved, '2026-03-31')).toEqual([
      // 27 of the 28 days of Jan 31–Feb 28: 30.00 × 27 / 28 = 28.928… → 28.93
      ['2026-02-01', '2026-02-28', 'stub', 2893],
      ['2026-02-28', '2026-03-31', 'term', 3000],
      ['2026-03-31', '2026-04-30', 'term', 3000],
    ]);
  });

  it('a move to a later day than the renewal in a quarter: the stub over the new quarter', () => {
    const quarterly = onDay('2026-01-01', 1, { price: '90.00', term: QUARTERLY });
    const moved = movedAfterBilling(quarterly, '2026-01-01', 10);
    expect(periodsUpTo(moved, '2026-04-10')).toEqual([
      // The new quarter holding Apr 1 is Jan 10–Apr 10 (21 + 28 + 31 + 9 = 90 days): 90.00 × 9 / 90 = 9.00
      ['2026-04-01', '2026-04-10', 'stub', 900],
      ['2026-04-10', '2026-07-10', 'term', 9000],
    ]);
  });

  it('before the first whole term is billed, the first period is planned again', () => {
    const record = { ...onDay('2026-01-20', 1), term: MONTHLY };
    // Nothing billed yet: the stub now runs to Feb 15.
    expect(changeBillCycle(record, 15)).toEqual({
      kind: 'first',
      isProRata: true,
      firstProrataSyncDate: '2026-02-15',
      anchorDate: '2026-02-15',
    });
    // A start on the new day needs no stub.
    expect(changeBillCycle(record, 20)).toEqual({
      kind: 'first',
      isProRata: false,
      firstProrataSyncDate: null,
      anchorDate: '2026-01-20',
    });
    // Once billed, the move waits for the end of the billed time.
    expect(changeBillCycle({ ...record, nextRenewDate: '2026-02-01' }, 15)).toEqual({
      kind: 'next',
      from: '2026-02-01',
      to: '2026-02-15',
      anchorDate: '2026-02-15',
    });
  });

  it('a move to the day the next period already starts on makes no stub', () => {
    expect(moveBillCycle('2026-03-31', 31, MONTHLY)).toEqual({
      from: '2026-03-31',
      to: '2026-03-31',
      anchorDate: '2026-03-31',
    });
    const moved = movedAfterBilling(onDay('2026-01-01', 1), '2026-01-01', 1);
    expect(periodsUpTo(moved, '2026-03-01')).toEqual([
      ['2026-02-01', '2026-03-01', 'term', 3000],
      ['2026-03-01', '2026-04-01', 'term', 3000],
    ]);
  });
});
