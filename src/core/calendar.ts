import { Temporal } from 'temporal-polyfill';
import type { FieldProblem } from '../errors.ts';
import { memoize } from './memo.ts';
import { parseWireDate } from './wireDates.ts';

/**
 * Billing dates are calendar dates (`YYYY-MM-DD`) in the account's time zone; audit times are UTC instants.
 * These convert between the two and do the day arithmetic. Pure: "today" is computed from an instant that the
 * caller takes from its clock.
 */
export type PlainDate = string;

const HOUR_MS = 3_600_000;
const YEAR_10000 = Date.UTC(10_000, 0, 1) - 14 * HOUR_MS;

/**
 * The zone's offset from UTC in milliseconds at the start of an hour since the epoch. Instants differ row by row
 * (every created_at), hours far less: asking Temporal once an hour keeps a bill run's conversions cheap.
 */
const offsetAtHour = memoize(
  (hour: number, timeZone: string) =>
    Temporal.Instant.fromEpochMilliseconds(hour * HOUR_MS).toZonedDateTimeISO(timeZone).offsetNanoseconds /
    1_000_000,
  (hour, timeZone) => `${hour}|${timeZone}`,
);

/** The calendar date in the time zone at an instant. */
export function dateAt(instant: Date | string, timeZone: string): PlainDate {
  const epochMilliseconds = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  const hour = Math.floor(epochMilliseconds / HOUR_MS);
  const offset = offsetAtHour(hour, timeZone);
  // Zones change their offset months apart: one offset at both ends of an hour holds through it, and the date
  // is the UTC date of the shifted instant (years 1970 to 9999, where the ISO form is the plain YYYY-MM-DD).
  if (
    offset === offsetAtHour(hour + 1, timeZone) &&
    epochMilliseconds >= 0 &&
    epochMilliseconds < YEAR_10000
  ) {
    return new Date(epochMilliseconds + offset).toISOString().slice(0, 10);
  }
  return Temporal.Instant.fromEpochMilliseconds(epochMilliseconds)
    .toZonedDateTimeISO(timeZone)
    .toPlainDate()
    .toString();
}

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

/** A request's date as a calendar date in the time zone, or undefined with a problem of `field`. */
export function checkedWireDate(
  text: string,
  timeZone: string,
  field: string,
  problems: FieldProblem[],
): PlainDate | undefined {
  const date = parseWireCalendarDate(text, timeZone);
  if (date === undefined) problems.push({ field, message: 'must be a date' });
  return date;
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

/** Saturday or Sunday: no rail we collect on processes either (src/core/bankingDays.ts, isBusinessDay). */
export function isWeekend(date: PlainDate): boolean {
  return Temporal.PlainDate.from(date).dayOfWeek >= 6;
}

/**
 * An instant as a person reads it in the account's time zone (docs/portal.md, "Dates and times"):
 * "27 Nov 2026, 00:30 (Africa/Johannesburg)", never a raw UTC ISO string.
 */
export function localDateTimeText(instant: string, timeZone: string): string {
  const text = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(instant));
  return `${text} (${timeZone})`;
}

/** The date of an instant in the time zone, as a person reads it: "27 Nov 2026". */
export function localDateText(instant: string, timeZone: string): string {
  const [year, month, day] = dateAt(instant, timeZone).split('-').map(Number) as [number, number, number];
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  }).format(new Date(Date.UTC(year, month - 1, day)));
}
