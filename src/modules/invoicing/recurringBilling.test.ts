import { describe, expect, it } from 'vitest';
import {
  MAX_PERIODS_PER_PLAN,
  periodCountResumingAt,
  planRecurringInvoices,
  recurringStatus,
  scheduleState,
} from './recurringBilling.ts';
import type { RecurringSchedule } from './recurringBilling.ts';
import { BillingInvariantError } from './billingInvariant.ts';

const monthly = { count: 1, unit: 'months' } as const;

function schedule(overrides: Partial<RecurringSchedule> = {}): RecurringSchedule {
  return {
    startDate: '2026-01-01',
    endDate: null,
    term: monthly,
    numDaysBeforeToInv: 0,
    createdOn: '2025-12-01',
    isCancelled: false,
    periodCount: 0,
    lastRenewDate: null,
    lastInvDate: null,
    ...overrides,
  };
}

/** [start, end, invoiceDate] of each period planned. */
const spans = (s: RecurringSchedule, today: string) =>
  planRecurringInvoices(s, today).periods.map((p) => [p.start, p.end, p.invoiceDate]);

describe('planRecurringInvoices: which periods, with which dates', () => {
  it.each([
    {
      name: 'Jan 31 monthly clamps to Feb 28, then returns to Mar 31 (2026, not leap)',
      s: schedule({ startDate: '2026-01-31' }),
      today: '2026-03-31',
      expected: [
        ['2026-01-31', '2026-02-28', '2026-01-31'],
        ['2026-02-28', '2026-03-31', '2026-02-28'],
        ['2026-03-31', '2026-04-30', '2026-03-31'],
      ],
    },
    {
      name: 'Jan 31 monthly in a leap year renews on Feb 29',
      s: schedule({ startDate: '2028-01-31', createdOn: '2028-01-01' }),
      today: '2028-03-01',
      expected: [
        ['2028-01-31', '2028-02-29', '2028-01-31'],
        ['2028-02-29', '2028-03-31', '2028-02-29'],
      ],
    },
    {
      name: 'a Feb 29 start with 12-month terms renews on Feb 28 and again on Feb 29 four years on',
      s: schedule({ startDate: '2028-02-29', term: { count: 12, unit: 'months' }, createdOn: '2028-01-01' }),
      today: '2032-02-29',
      expected: [
        ['2028-02-29', '2029-02-28', '2028-02-29'],
        ['2029-02-28', '2030-02-28', '2029-02-28'],
        ['2030-02-28', '2031-02-28', '2030-02-28'],
        ['2031-02-28', '2032-02-29', '2031-02-28'],
        ['2032-02-29', '2033-02-28', '2032-02-29'],
      ],
    },
    {
      name: '2-month terms',
      s: schedule({ startDate: '2026-01-15', term: { count: 2, unit: 'months' } }),
      today: '2026-05-15',
      expected: [
        ['2026-01-15', '2026-03-15', '2026-01-15'],
        ['2026-03-15', '2026-05-15', '2026-03-15'],
        ['2026-05-15', '2026-07-15', '2026-05-15'],
      ],
    },
    {
      // Feb 2026 has 28 days: Feb 20 + 14 = Mar 6, + 14 = Mar 20.
      name: '14-day terms across the end of February',
      s: schedule({ startDate: '2026-02-20', term: { count: 14, unit: 'days' } }),
      today: '2026-03-19',
      expected: [
        ['2026-02-20', '2026-03-06', '2026-02-20'],
        ['2026-03-06', '2026-03-20', '2026-03-06'],
      ],
    },
    {
      name: 'catching up three missed months gives one invoice per month',
      s: schedule({ startDate: '2026-01-10' }),
      today: '2026-03-20',
      expected: [
        ['2026-01-10', '2026-02-10', '2026-01-10'],
        ['2026-02-10', '2026-03-10', '2026-02-10'],
        ['2026-03-10', '2026-04-10', '2026-03-10'],
      ],
    },
    {
      // Mar 1 − 5 days = Feb 24; the next, Apr 1 − 5 = Mar 27, is not due on Feb 24.
      name: 'numDaysBeforeToInv dates the invoice that many days before the period',
      s: schedule({ startDate: '2026-03-01', numDaysBeforeToInv: 5, createdOn: '2026-02-01' }),
      today: '2026-02-24',
      expected: [['2026-03-01', '2026-04-01', '2026-02-24']],
    },
    {
      // Jan 31 − 3 = Jan 28; Feb 28 − 3 = Feb 25; Mar 31 − 3 = Mar 28.
      name: 'numDaysBeforeToInv counts back from the clamped month ends',
      s: schedule({ startDate: '2026-01-31', numDaysBeforeToInv: 3 }),
      today: '2026-03-28',
      expected: [
        ['2026-01-31', '2026-02-28', '2026-01-28'],
        ['2026-02-28', '2026-03-31', '2026-02-25'],
        ['2026-03-31', '2026-04-30', '2026-03-28'],
      ],
    },
    {
      name: 'no invoice is dated before the day the recurring invoice was created (a StartDate in the past)',
      s: schedule({ startDate: '2026-01-01', createdOn: '2026-02-15' }),
      today: '2026-02-15',
      expected: [
        ['2026-01-01', '2026-02-01', '2026-02-15'],
        ['2026-02-01', '2026-03-01', '2026-02-15'],
      ],
    },
    {
      name: 'the EndDate cuts the last period, which is still billed (in full, by the caller)',
      s: schedule({ endDate: '2026-02-15' }),
      today: '2026-12-31',
      expected: [
        ['2026-01-01', '2026-02-01', '2026-01-01'],
        ['2026-02-01', '2026-02-15', '2026-02-01'],
      ],
    },
    {
      name: 'an EndDate on a boundary ends with a whole period',
      s: schedule({ endDate: '2026-03-01' }),
      today: '2026-12-31',
      expected: [
        ['2026-01-01', '2026-02-01', '2026-01-01'],
        ['2026-02-01', '2026-03-01', '2026-02-01'],
      ],
    },
    {
      name: 'continues from the periods already billed (period 3 of a Jan 31 schedule is Mar 31 to Apr 30)',
      s: schedule({ startDate: '2026-01-31', periodCount: 2 }),
      today: '2026-04-30',
      expected: [
        ['2026-03-31', '2026-04-30', '2026-03-31'],
        ['2026-04-30', '2026-05-31', '2026-04-30'],
      ],
    },
    { name: 'nothing before the first invoice date', s: schedule(), today: '2025-12-31', expected: [] },
    { name: 'nothing when cancelled', s: schedule({ isCancelled: true }), today: '2026-12-31', expected: [] },
  ])('$name', ({ s, today, expected }) => {
    expect(spans(s, today)).toEqual(expected);
  });

  it('numbers the periods from 1, continuing the count', () => {
    const plan = planRecurringInvoices(schedule({ periodCount: 2 }), '2026-04-01');
    expect(plan.periods.map((p) => p.periodNo)).toEqual([3, 4]);
  });
});

describe('planRecurringInvoices: the record after the plan', () => {
  it('advances the count and the dates', () => {
    const { next } = planRecurringInvoices(schedule({ startDate: '2026-01-31' }), '2026-03-31');
    expect(next).toEqual({
      periodCount: 3,
      lastRenewDate: '2026-03-31',
      lastInvDate: '2026-03-31',
      nextRenewDate: '2026-04-30',
      nextInvDate: '2026-04-30',
    });
  });

  it('keeps the last dates and points at the next invoice when nothing is due', () => {
    const s = schedule({
      periodCount: 1,
      lastRenewDate: '2026-01-01',
      lastInvDate: '2025-12-27',
      numDaysBeforeToInv: 5,
    });
    // Period 2 starts Feb 1; its invoice is dated Jan 27.
    expect(planRecurringInvoices(s, '2026-01-26').next).toEqual({
      periodCount: 1,
      lastRenewDate: '2026-01-01',
      lastInvDate: '2025-12-27',
      nextRenewDate: '2026-02-01',
      nextInvDate: '2026-01-27',
    });
  });

  it('has no next dates once the EndDate is reached', () => {
    const { next } = planRecurringInvoices(schedule({ endDate: '2026-02-15' }), '2026-12-31');
    expect(next).toEqual({
      periodCount: 2,
      lastRenewDate: '2026-02-01',
      lastInvDate: '2026-02-01',
      nextRenewDate: null,
      nextInvDate: null,
    });
  });

  it('has no next dates while cancelled, and keeps the last ones', () => {
    const s = schedule({
      isCancelled: true,
      periodCount: 1,
      lastRenewDate: '2026-01-01',
      lastInvDate: '2026-01-01',
    });
    expect(planRecurringInvoices(s, '2026-12-31').next).toEqual({
      periodCount: 1,
      lastRenewDate: '2026-01-01',
      lastInvDate: '2026-01-01',
      nextRenewDate: null,
      nextInvDate: null,
    });
  });

  it(`plans at most ${MAX_PERIODS_PER_PLAN} periods per call; the next call continues where it stopped`, () => {
    const daily = schedule({
      startDate: '2024-01-01',
      term: { count: 1, unit: 'days' },
      createdOn: '2024-01-01',
    });
    const first = planRecurringInvoices(daily, '2025-12-31');
    expect(first.periods).toHaveLength(MAX_PERIODS_PER_PLAN);
    // 2024 is a leap year of 366 days: day 400 is Feb 3 2025, so the next period starts Feb 4.
    expect(first.periods.at(-1)!.start).toBe('2025-02-03');
    expect(first.next).toMatchObject({ periodCount: 400, nextInvDate: '2025-02-04' });
    const second = planRecurringInvoices({ ...daily, ...first.next }, '2025-12-31');
    expect(second.periods[0]).toEqual({
      periodNo: 401,
      start: '2025-02-04',
      end: '2025-02-05',
      invoiceDate: '2025-02-04',
    });
    // Jan 1 2024 to Dec 31 2025 inclusive is 366 + 365 = 731 days.
    expect(second.periods).toHaveLength(731 - 400);
    expect(second.next.nextInvDate).toBe('2026-01-01');
  });

  it('refuses a broken record', () => {
    expect(() =>
      planRecurringInvoices(schedule({ term: { count: 0, unit: 'months' } }), '2026-01-01'),
    ).toThrow(BillingInvariantError);
    expect(() =>
      planRecurringInvoices(schedule({ term: { count: 1, unit: 'weeks' as 'days' } }), '2026-01-01'),
    ).toThrow(BillingInvariantError);
    expect(() => planRecurringInvoices(schedule({ endDate: '2026-01-01' }), '2026-01-01')).toThrow(
      BillingInvariantError,
    );
  });
});

describe('scheduleState (what a create or edit stores)', () => {
  it.each([
    { name: 'a new schedule starts at the StartDate', s: schedule(), renew: '2026-01-01', inv: '2026-01-01' },
    {
      name: 'numDaysBeforeToInv moves the invoice date back',
      s: schedule({ numDaysBeforeToInv: 10 }),
      renew: '2026-01-01',
      inv: '2025-12-22',
    },
    {
      name: 'but never before the creation day',
      s: schedule({ numDaysBeforeToInv: 10, createdOn: '2025-12-28' }),
      renew: '2026-01-01',
      inv: '2025-12-28',
    },
    { name: 'cancelled: none', s: schedule({ isCancelled: true }), renew: null, inv: null },
    {
      name: 'all periods billed: none',
      s: schedule({ endDate: '2026-03-01', periodCount: 2 }),
      renew: null,
      inv: null,
    },
  ])('$name', ({ s, renew, inv }) => {
    expect(scheduleState(s)).toMatchObject({ nextRenewDate: renew, nextInvDate: inv });
  });
});

describe('periodCountResumingAt (reactivation)', () => {
  it.each([
    {
      // Cancelled after Jan; reactivated Apr 15: Feb, Mar and Apr were due while cancelled; May 1 is next.
      name: 'skips the periods that fell due while cancelled',
      s: schedule({ periodCount: 1 }),
      today: '2026-04-15',
      expected: 4,
    },
    {
      name: 'keeps a period whose invoice is dated today',
      s: schedule({ periodCount: 1 }),
      today: '2026-04-01',
      expected: 3,
    },
    {
      // Invoices 5 days ahead: May 1's is dated Apr 26, after Apr 15, so it is kept.
      name: 'counts with the invoice date, not the period start',
      s: schedule({ periodCount: 1, numDaysBeforeToInv: 5 }),
      today: '2026-04-15',
      expected: 4,
    },
    {
      name: 'skips nothing before the first invoice',
      s: schedule({ startDate: '2026-06-01' }),
      today: '2026-04-15',
      expected: 0,
    },
    {
      name: 'skips nothing on the day it was created (its backdated periods are dated that day)',
      s: schedule({ startDate: '2026-01-01', createdOn: '2026-04-15' }),
      today: '2026-04-15',
      expected: 0,
    },
    {
      name: 'never goes back',
      s: schedule({ periodCount: 6 }),
      today: '2026-02-15',
      expected: 6,
    },
    {
      name: 'clamped month ends: a Jan 31 schedule resumed on Mar 1 skips Feb 28 and keeps Mar 31',
      s: schedule({ startDate: '2026-01-31', periodCount: 1 }),
      today: '2026-03-01',
      expected: 2,
    },
  ])('$name', ({ s, today, expected }) => {
    expect(periodCountResumingAt(s, today)).toBe(expected);
  });
});

describe('recurringStatus (comp_Status)', () => {
  const s = schedule({ startDate: '2026-02-01', endDate: '2026-06-01' });
  it.each([
    ['2026-01-31', s, 'Future'],
    ['2026-02-01', s, 'Active'],
    ['2026-05-31', s, 'Active'],
    ['2026-06-01', s, 'Expired'],
    ['2026-01-31', { ...s, isCancelled: true }, 'Cancelled'],
    ['2026-07-01', { ...s, isCancelled: true }, 'Cancelled'],
    ['2030-01-01', { ...s, endDate: null }, 'Active'],
  ] as const)('on %s: %#', (today, schedule, expected) => {
    expect(recurringStatus(schedule, today)).toBe(expected);
  });
});
