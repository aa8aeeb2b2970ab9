import { Temporal } from 'temporal-polyfill';

/**
 * Dates on the wire (spec, Conventions 2): responses are ISO 8601 instants in UTC; requests accept ISO 8601
 * date-times (with an offset, `Z`, or none), bare ISO dates, and the text shape `DD Mon YYYY` (`05 Mar 2026`).
 * A value without an offset is wall time in the account's time zone; a bare date is its midnight there.
 */
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const TEXT_DATE = /^(\d{1,2}) ([A-Za-z]{3}) (\d{4})$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_LOCAL = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;
const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|z|[+-]\d{2}(:?\d{2})?)$/;

function plainDateFromText(text: string): Temporal.PlainDate | undefined {
  const match = TEXT_DATE.exec(text);
  if (!match) return undefined;
  const month = MONTHS.indexOf(match[2]!.toLowerCase()) + 1;
  if (month === 0) return undefined;
  return Temporal.PlainDate.from(
    { year: Number(match[3]), month, day: Number(match[1]) },
    { overflow: 'reject' },
  );
}

function parse(text: string, timeZone: string): Temporal.Instant | undefined {
  const value = text.trim();
  try {
    if (ISO_OFFSET.test(value)) return Temporal.Instant.from(value.replace(' ', 'T'));
    if (ISO_LOCAL.test(value)) {
      return Temporal.PlainDateTime.from(value.replace(' ', 'T')).toZonedDateTime(timeZone).toInstant();
    }
    const date = ISO_DATE.test(value) ? Temporal.PlainDate.from(value) : plainDateFromText(value);
    return date?.toZonedDateTime({ timeZone }).toInstant();
  } catch {
    return undefined; // Temporal rejects impossible dates such as 2026-02-30 with a RangeError.
  }
}

export function isWireDate(text: string): boolean {
  return parseWireDate(text, 'UTC') !== undefined;
}

// Years 0001 to 9999 in UTC: what ISO 8601 writes without an expanded year, and what PostgreSQL stores.
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** The instant a request's date means, as an ISO string in UTC with milliseconds; undefined if unreadable. */
export function parseWireDate(text: string, timeZone: string): string | undefined {
  const instant = parse(text, timeZone);
  if (instant === undefined) return undefined;
  const ms = instant.epochMilliseconds;
  return ms < EARLIEST || ms > LATEST ? undefined : new Date(ms).toISOString();
}

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
