import { Temporal } from 'temporal-polyfill';
import { memoize } from './memo.ts';
import type { PlainDate } from './calendar.ts';

/**
 * South Africa's public holidays, the days its banks do not process debit orders (docs/gateways.md, "Business days
 * and public holidays"). Pure: computed for any year, no table to keep up to date.
 *
 * Source: the Public Holidays Act 36 of 1994, Schedule 1 (the list below, Good Friday and Family Day by the date of
 * Easter), and section 2(1): "whenever any public holiday falls on a Sunday, the Monday following on it shall be a
 * public holiday". Holidays the President declares for one year (an election day, a special day) are not in the Act
 * and so not here; a batch that meets one is re-dated by its bank.
 */

export interface PublicHoliday {
  date: PlainDate;
  name: string;
}

/** Schedule 1's holidays on fixed dates, month and day. */
const FIXED: readonly { month: number; day: number; name: string }[] = [
  { month: 1, day: 1, name: "New Year's Day" },
  { month: 3, day: 21, name: 'Human Rights Day' },
  { month: 4, day: 27, name: 'Freedom Day' },
  { month: 5, day: 1, name: "Workers' Day" },
  { month: 6, day: 16, name: 'Youth Day' },
  { month: 8, day: 9, name: "National Women's Day" },
  { month: 9, day: 24, name: 'Heritage Day' },
  { month: 12, day: 16, name: 'Day of Reconciliation' },
  { month: 12, day: 25, name: 'Christmas Day' },
  { month: 12, day: 26, name: 'Day of Goodwill' },
];

/**
 * Easter Sunday of a Gregorian year, by the anonymous Gregorian algorithm (Meeus/Jones/Butcher), which the Western
 * churches' date follows; exact for every year of the Gregorian calendar.
 */
export function easterSunday(year: number): PlainDate {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Temporal.PlainDate.from({ year, month, day }).toString();
}

/** The year's public holidays in date order, each Sunday holiday followed by its Monday (section 2(1)). */
export const southAfricanPublicHolidays: (year: number) => readonly PublicHoliday[] = memoize(
  (year: number) => {
    const easter = Temporal.PlainDate.from(easterSunday(year));
    const listed: PublicHoliday[] = [
      ...FIXED.map(({ month, day, name }) => ({
        date: Temporal.PlainDate.from({ year, month, day }).toString(),
        name,
      })),
      { date: easter.subtract({ days: 2 }).toString(), name: 'Good Friday' },
      { date: easter.add({ days: 1 }).toString(), name: 'Family Day' },
    ];
    const holidays = new Map(listed.map((holiday) => [holiday.date, holiday]));
    for (const holiday of listed) {
      const date = Temporal.PlainDate.from(holiday.date);
      const monday = date.add({ days: 1 }).toString();
      // Only Schedule 1's fixed days can fall on a Sunday (Good Friday and Family Day never do); a Monday that is a
      // holiday already (26 December after a Sunday Christmas) adds no day.
      if (date.dayOfWeek === 7 && !holidays.has(monday)) {
        holidays.set(monday, { date: monday, name: `${holiday.name} (observed)` });
      }
    }
    return [...holidays.values()].sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : 0));
  },
  (year) => String(year),
);

/** The public holiday on the date, or undefined. */
export function southAfricanPublicHoliday(date: PlainDate): PublicHoliday | undefined {
  return southAfricanPublicHolidays(Number(date.slice(0, 4))).find((holiday) => holiday.date === date);
}
