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
