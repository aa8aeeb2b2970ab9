import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { easterSunday, southAfricanPublicHoliday, southAfricanPublicHolidays } from './publicHolidays.ts';

const datesOf = (year: number) => southAfricanPublicHolidays(year).map((holiday) => holiday.date);

describe('South African public holidays', () => {
  // The government's published lists (gov.za, "Public holidays"), Sunday holidays moved to the Monday.
  it('lists 2026 as published: Women’s Day on a Sunday gives Monday 10 August', () => {
    expect(datesOf(2026)).toEqual([
      '2026-01-01',
      '2026-03-21',
      '2026-04-03',
      '2026-04-06',
      '2026-04-27',
      '2026-05-01',
      '2026-06-16',
      '2026-08-09',
      '2026-08-10',
      '2026-09-24',
      '2026-12-16',
      '2026-12-25',
      '2026-12-26',
    ]);
  });

  it('lists 2027 as published: Human Rights Day and the Day of Goodwill on Sundays', () => {
    expect(datesOf(2027)).toEqual([
      '2027-01-01',
      '2027-03-21',
      '2027-03-22',
      '2027-03-26',
      '2027-03-29',
      '2027-04-27',
      '2027-05-01',
      '2027-06-16',
      '2027-08-09',
      '2027-09-24',
      '2027-12-16',
      '2027-12-25',
      '2027-12-26',
      '2027-12-27',
    ]);
  });

  it('lists 2028 as published: Heritage Day on a Sunday gives Monday 25 September', () => {
    expect(datesOf(2028)).toEqual([
      '2028-01-01',
      '2028-03-21',
      '2028-04-14',
      '2028-04-17',
      '2028-04-27',
      '2028-05-01',
      '2028-06-16',
      '2028-08-09',
      '2028-09-24',
      '2028-09-25',
      '2028-12-16',
      '2028-12-25',
      '2028-12-26',
    ]);
  });

  it('adds no day when a Sunday Christmas is followed by the Day of Goodwill (2022)', () => {
    expect(datesOf(2022).filter((date) => date >= '2022-12-25')).toEqual(['2022-12-25', '2022-12-26']);
  });

  it('names the day, and none on an ordinary one', () => {
    expect(southAfricanPublicHoliday('2027-03-29')?.name).toBe('Family Day');
    expect(southAfricanPublicHoliday('2027-12-27')?.name).toBe('Day of Goodwill (observed)');
    expect(southAfricanPublicHoliday('2026-12-28')).toBeUndefined();
  });

  it('computes Easter as the churches publish it', () => {
    expect([2024, 2025, 2026, 2027, 2028, 2038].map(easterSunday)).toEqual([
      '2024-03-31',
      '2025-04-20',
      '2026-04-05',
      '2027-03-28',
      '2028-04-16',
      '2038-04-25',
    ]);
  });

  it('never loses the Sunday rule: every Sunday holiday is followed by a holiday Monday', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1995, max: 2200 }), (year) => {
        const dates = new Set(datesOf(year));
        for (const date of dates) {
          const day = Temporal.PlainDate.from(date);
          if (day.dayOfWeek === 7) expect(dates.has(day.add({ days: 1 }).toString())).toBe(true);
        }
        // Every day of Schedule 1 is there, in date order, Easter a Sunday.
        const fixed = [
          '01-01',
          '03-21',
          '04-27',
          '05-01',
          '06-16',
          '08-09',
          '09-24',
          '12-16',
          '12-25',
          '12-26',
        ];
        for (const monthDay of fixed) expect(dates.has(`${year}-${monthDay}`)).toBe(true);
        expect([...dates]).toEqual([...dates].sort());
        const easter = Temporal.PlainDate.from(easterSunday(year));
        expect(easter.dayOfWeek).toBe(7);
        expect(dates.has(easter.subtract({ days: 2 }).toString())).toBe(true);
        expect(dates.has(easter.add({ days: 1 }).toString())).toBe(true);
      }),
    );
  });
});
