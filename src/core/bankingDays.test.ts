import { describe, expect, it } from 'vitest';
import {
  RAILS,
  addBusinessDays,
  earliestActionDate,
  isBusinessDay,
  lastSubmitDate,
  lateWindowEnd,
  notBusinessDayReason,
  oldestActionDateWithLateReturns,
  onBusinessDay,
  railOfBatch,
  returnWindowEnd,
} from './bankingDays.ts';

describe('late windows', () => {
  it('looks back as far as the longest rail window, ACH 60 days, and no further', () => {
    const today = '2026-03-01';
    const oldest = oldestActionDateWithLateReturns(today);
    // 2026-03-01 − 60 days = 2025-12-31.
    expect(oldest).toBe('2025-12-31');
    expect(lateWindowEnd('ach', oldest)).toBe(today);
    for (const rail of RAILS) expect(lateWindowEnd(rail, oldest) <= today).toBe(true);
  });
});

describe('business days', () => {
  it('skips SA public holidays for debit orders, weekends only for ACH and SEPA', () => {
    // Christmas 2026 is a Friday, the Day of Goodwill a Saturday.
    expect(isBusinessDay('debit_order', '2026-12-25')).toBe(false);
    expect(isBusinessDay('ach', '2026-12-25')).toBe(true);
    expect(onBusinessDay('2026-12-25', 'debit_order')).toBe('2026-12-28');
    expect(onBusinessDay('2026-12-26', 'sepa')).toBe('2026-12-28');
    expect(addBusinessDays('2026-12-23', 2, 'debit_order')).toBe('2026-12-28');
    expect(addBusinessDays('2026-12-23', 2, 'ach')).toBe('2026-12-25');
  });

  it('counts the return window in business days past Easter', () => {
    // Easter 2027: Good Friday 26 Mar, Family Day 29 Mar.
    // From Thursday 25 Mar: 30, 31 Mar, 1, 2 Apr are the four business days.
    expect(returnWindowEnd('debit_order', '2027-03-25')).toBe('2027-04-02');
  });

  it('submits two business days before the action date at the latest', () => {
    // Monday 28 Dec 2026: Thursday 24 and Wednesday 23 December are the two business days before it.
    expect(lastSubmitDate('debit_order', '2026-12-28')).toBe('2026-12-23');
    expect(earliestActionDate('debit_order', '2026-12-23')).toBe('2026-12-28');
    expect(lastSubmitDate('ach', '2026-12-28')).toBe('2026-12-25');
    for (const rail of RAILS) {
      for (let day = 1; day <= 28; day += 1) {
        const action = onBusinessDay(`2027-03-${String(day).padStart(2, '0')}`, rail);
        expect(earliestActionDate(rail, lastSubmitDate(rail, action))).toBe(action);
      }
    }
  });
});

describe('action dates a person sets', () => {
  it('says why a date is not a business day, and the next one', () => {
    expect(notBusinessDayReason('debit_order', '2026-12-25')).toBe(
      '2026-12-25 is a public holiday (Christmas Day); the next business day is 2026-12-28',
    );
    // New Year's Day 2027 is a Friday; the weekend follows.
    expect(notBusinessDayReason('debit_order', '2027-01-01')).toBe(
      "2027-01-01 is a public holiday (New Year's Day); the next business day is 2027-01-04",
    );
    // The Day of Goodwill 2026 is a Saturday: named as the holiday it is.
    expect(notBusinessDayReason('debit_order', '2026-12-26')).toBe(
      '2026-12-26 is a public holiday (Day of Goodwill); the next business day is 2026-12-28',
    );
    expect(notBusinessDayReason('debit_order', '2026-12-06')).toBe(
      '2026-12-06 is a Sunday; the next business day is 2026-12-07',
    );
    expect(notBusinessDayReason('debit_order', '2026-12-28')).toBeUndefined();
    expect(notBusinessDayReason('ach', '2026-12-25')).toBeUndefined();
    expect(notBusinessDayReason('sepa', '2026-12-26')).toBe(
      '2026-12-26 is a Saturday; the next business day is 2026-12-28',
    );
  });

  it('takes the rail of a batch from its lines, else ZAR as SA debit orders', () => {
    expect(railOfBatch('ach', 'ZAR')).toBe('ach');
    expect(railOfBatch(null, 'ZAR')).toBe('debit_order');
    expect(railOfBatch(null, 'zar')).toBe('debit_order');
    expect(railOfBatch(null, 'USD')).toBeUndefined();
  });
});
