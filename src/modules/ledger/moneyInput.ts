import type { FieldProblem } from '../../errors.ts';
import { parseWireCalendarDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { wireAmountToMinor } from '../../core/money.ts';

/**
 * A money request's values as the serializer reads them from the wire, before the use case judges them. A value
 * that cannot be read is carried, not thrown: the use case reports it with every other problem, in the order of
 * the wire fields, and only after the checks that must come first (the customer exists, the currency is enabled),
 * as a request has always been answered.
 */
export type Read<T> = { value: T } | { refused: string };

/**
 * An amount in major units, exactly as the client wrote it (a JSON number by its shortest spelling, which
 * `String(0.1)` gives). Its decimals are checked in the use case: they depend on the currency, which only the use
 * case knows is enabled (and which, for adjustments, is the customer's).
 */
export type DecimalAmount = Read<string>;

export function amountFromWire(value: number | string): DecimalAmount {
  // NOTE: JSON.parse reads 1e400 as Infinity, which has no decimal spelling.
  if (typeof value === 'number' && !Number.isFinite(value)) return { refused: 'must be a finite number' };
  return { value: typeof value === 'number' ? String(value) : value };
}

/** A request's date (any shape the wire accepts) as the calendar date it names in the account's time zone. */
export function dateFromWire(text: string, timeZone: string): Read<PlainDate> {
  const date = parseWireCalendarDate(text, timeZone);
  return date === undefined ? { refused: 'must be a date' } : { value: date };
}

/** The value read, or undefined with the problem noted under `field`. */
export function readValue<T>(read: Read<T>, field: string, problems: FieldProblem[]): T | undefined {
  if ('value' in read) return read.value;
  problems.push({ field, message: read.refused });
  return undefined;
}

/** The amount in the currency's minor unit (exact: more decimals than the currency has are refused), or a problem. */
export function amountInMinor(
  amount: DecimalAmount,
  currencyCode: string,
  field: string,
  problems: FieldProblem[],
): number | undefined {
  const text = readValue(amount, field, problems);
  if (text === undefined) return undefined;
  const minor = wireAmountToMinor(text, currencyCode);
  if ('minor' in minor) return minor.minor;
  problems.push({ field, message: minor.message });
  return undefined;
}
