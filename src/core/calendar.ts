import { Temporal } from 'temporal-polyfill';
import { memoize } from './memo.ts';
import { parseWireDate } from './wireDates.ts';

/**
 * Billing dates are calendar dates (`YYYY-MM-DD`) in the account's time zone; audit times are UTC instants.
 * These convert between the two and do the day arithmetic. Pure: "today" is computed from an instant that the
 * caller takes from its clock.
 */
export type PlainDate = string;

/** The calendar date in the time zone at an instant. */
export function dateAt(instant: Date | string, timeZone: string): PlainDate {
  return dateAtEpoch(typeof instant === 'string' ? Date.parse(instant) : instant.getTime(), timeZone);
}

// Every rendering of a resource converts the same few instants and dates (a clock's now, a term's days): kept.
const dateAtEpoch = memoize(
  (epochMilliseconds: number, timeZone: string) =>
    Temporal.Instant.fromEpochMilliseconds(epochMilliseconds)
      .toZonedDateTimeISO(timeZone)
      .toPlainDate()
      .toString(),
  (epochMilliseconds, timeZone) => `${epochMilliseconds}|${timeZone}`,
);

/** The instant a calendar date begins in the time zone, as the wire shows dates (ISO 8601, UTC, `Z`). */
export const startOfDate: (date: PlainDate, timeZone: string) => string = memoize(
  (date: PlainDate, timeZone: string) =>
    new Date(Temporal.PlainDate.from(date).toZonedDateTime({ timeZone }).epochMilliseconds).toISOString(),
  (date, timeZone) => `${date}|${timeZone}`,
);

/** A request's date (any shape the wire accepts) as a calendar date in the time zone; undefined if unreadable. */
export function parseWireCalendarDate(text: string, timeZone: string): PlainDate | undefined {
  const instant = parseWireDate(text, timeZone);
  return instant === undefined ? undefined : dateAt(instant, timeZone);
}

export const addDays: (date: PlainDate, days: number) => PlainDate = memoize(
  (date: PlainDate, days: number) => Temporal.PlainDate.from(date).add({ days }).toString(),
  (date, days) => `${date}|${days}`,
);

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween: (from: PlainDate, to: PlainDate) => number = memoize(
  (from: PlainDate, to: PlainDate) =>
    Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to), { largestUnit: 'days' }).days,
  (from, to) => `${from}|${to}`,
);

export function maxDate(a: PlainDate, b: PlainDate): PlainDate {
  return a >= b ? a : b;
}

export function minDate(a: PlainDate, b: PlainDate): PlainDate {
  return a <= b ? a : b;
}
