import { findCurrency } from './currencies.ts';

/**
 * The one place where amounts meet the wire. Amounts are integers of the currency's minor unit (ISO 4217
 * exponent); the wire shows them as decimal numbers in major units. The division is exact once rounded to the
 * exponent's digits, because an integer over a power of ten has that many decimals at most.
 */
export function minorUnitDigits(currencyCode: string): number {
  const currency = findCurrency(currencyCode);
  if (!currency) throw new RangeError(`unknown currency ${currencyCode}`);
  return currency.minorUnitDigits;
}

export function minorToWireNumber(amountMinor: number, currencyCode: string): number {
  const digits = minorUnitDigits(currencyCode);
  return Number((amountMinor / 10 ** digits).toFixed(digits));
}

/** Unit prices and fees (package rates, component brackets) carry at most this many decimals. */
export const PRICE_DECIMALS = 4;

/**
 * The largest price or fee. Prices are returned as JSON numbers, so they must survive a trip through a binary
 * double: 15 significant digits do, and with 4 decimals that leaves 11 before the point.
 */
export const MAX_PRICE = '99999999999.9999';

/**
 * Rounding, the one rule for every amount the service computes: an exact value is rounded to the currency's
 * minor unit half away from zero (2.345 → 2.35, -2.345 → -2.35), once, at the line it belongs to. Totals are
 * sums of rounded lines and are never rounded again. The arithmetic is on integers (BigInt), so nothing is lost.
 */
const PLAIN_SIGNED_DECIMAL = /^-?\d+(\.\d+)?$/;

/** An exact decimal string as an integer over a power of ten: "12.30" is 1230 / 10^2. */
function parseExact(value: string): { units: bigint; scale: number } {
  if (!PLAIN_SIGNED_DECIMAL.test(value)) throw new RangeError(`not a plain decimal: ${value}`);
  const [whole, fraction = ''] = value.split('.');
  return { units: BigInt(whole! + fraction), scale: fraction.length };
}

/** numerator / denominator rounded half away from zero (denominator > 0). */
function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const quotient = (magnitude * 2n + denominator) / (denominator * 2n);
  return negative ? -quotient : quotient;
}

function toSafeNumber(value: bigint): number {
  const result = Number(value);
  if (!Number.isSafeInteger(result)) throw new RangeError(`amount ${value} is beyond the safe integer range`);
  return result;
}

/** An exact decimal amount in major units ("19.999") as minor units, rounded by the rule above. */
export function decimalToMinor(amount: string, currencyCode: string): number {
  const { units, scale } = parseExact(amount);
  return toSafeNumber(
    divideRounded(units * 10n ** BigInt(minorUnitDigits(currencyCode)), 10n ** BigInt(scale)),
  );
}

/** a × b (exact decimals, e.g. quantity × unit price) in minor units, rounded once. */
export function productToMinor(a: string, b: string, currencyCode: string): number {
  const x = parseExact(a);
  const y = parseExact(b);
  const digits = BigInt(minorUnitDigits(currencyCode));
  return toSafeNumber(divideRounded(x.units * y.units * 10n ** digits, 10n ** BigInt(x.scale + y.scale)));
}

/** amount × fraction (an exact decimal such as a tax perc "0.15"), rounded to the minor unit. */
export function fractionOfMinor(amountMinor: number, fraction: string): number {
  const { units, scale } = parseExact(fraction);
  return toSafeNumber(divideRounded(BigInt(amountMinor) * units, 10n ** BigInt(scale)));
}

/** amount × numerator / denominator (a pro-rated part, e.g. 10 days of 31), rounded to the minor unit. */
export function ratioOfMinor(amountMinor: number, numerator: number, denominator: number): number {
  if (!Number.isInteger(numerator) || !Number.isInteger(denominator) || denominator <= 0) {
    throw new RangeError(`bad ratio ${numerator}/${denominator}`);
  }
  return toSafeNumber(divideRounded(BigInt(amountMinor) * BigInt(numerator), BigInt(denominator)));
}

/** Minor units as a fixed-point decimal string in major units, for documents: 1230 USD → "12.30". */
export function minorToDecimalText(amountMinor: number, currencyCode: string): string {
  // String() of a fraction or of a huge number would give "1..5" or "1e+21", not a decimal.
  if (!Number.isSafeInteger(amountMinor)) throw new RangeError(`amount ${amountMinor} is not a safe integer`);
  const digits = minorUnitDigits(currencyCode);
  const sign = amountMinor < 0 ? '-' : '';
  const text = String(Math.abs(amountMinor)).padStart(digits + 1, '0');
  return digits === 0 ? sign + text : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * Minor units as a document prints them, thousands grouped with commas: 123456789 USD → "1,234,567.89"
 * (docs/spec-decisions.md, "Amounts on documents"). The API's decimals stay ungrouped (minorToDecimalText).
 */
export function minorToGroupedText(amountMinor: number, currencyCode: string): string {
  return groupThousands(minorToDecimalText(amountMinor, currencyCode));
}

/** A decimal's whole part grouped in thousands with commas, its fraction as it is: "-1234567.0125" → "-1,234,567.0125". */
export function groupThousands(decimal: string): string {
  const [whole = '', fraction] = decimal.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** The largest amount a money movement (payment, credit note, adjustment) may carry, in major units. */
export const MAX_AMOUNT = '99999999999.99';

/**
 * A money amount from the wire (a JSON number or a decimal string) as exact minor units, or why not. Nothing is
 * rounded: an amount with more decimals than the currency has (10.005 USD) is refused, not rounded. A JSON
 * number's shortest spelling (`String(0.1)` is "0.1") is the decimal the client wrote.
 */
export function wireAmountToMinor(
  value: number | string,
  currencyCode: string,
): { minor: number } | { message: string } {
  if (typeof value === 'number' && !Number.isFinite(value)) return { message: 'must be a finite number' };
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (/e/i.test(text) || !PLAIN_SIGNED_DECIMAL.test(text))
    return { message: 'must be a decimal number (e.g. 12.50)' };
  const digits = minorUnitDigits(currencyCode);
  const fraction = (text.split('.')[1] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return { message: `must have at most ${digits} decimals in ${currencyCode}` };
  const { units, scale } = parseExact(text);
  if (units <= 0n) return { message: 'must be greater than 0' };
  const limit = parseExact(MAX_AMOUNT);
  if (units * 10n ** BigInt(limit.scale) > limit.units * 10n ** BigInt(scale)) {
    return { message: `must be at most ${MAX_AMOUNT}` };
  }
  return { minor: decimalToMinor(text, currencyCode) };
}
