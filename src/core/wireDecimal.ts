import Big from 'big.js';

/**
 * The one reader of decimals sent on the wire (prices, quantities, units, invoice lines), exact. A JSON number
 * arrives as a binary double; its shortest round-trip spelling (`String(0.1)` is "0.1") is the decimal the client
 * wrote for up to 15 significant digits, so that text is what is read, and big.js reads exponent forms too (1e-7).
 * A string is read as written (trimmed), for clients that keep decimals exact, and must be a plain decimal.
 * Nothing is rounded here: callers refuse what has more decimals than their rule allows.
 */
export type WireDecimalRead = { value: Big } | { problem: 'not_finite' | 'not_decimal' };

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

export function readWireDecimal(value: number | string): WireDecimalRead {
  if (typeof value === 'number') {
    // JSON.parse reads 1e400 as Infinity.
    return Number.isFinite(value) ? { value: new Big(String(value)) } : { problem: 'not_finite' };
  }
  const text = value.trim();
  return PLAIN_DECIMAL.test(text) ? { value: new Big(text) } : { problem: 'not_decimal' };
}

/** Digits after the point, trailing zeros aside ("0.8000" has 1). */
export function decimalPlaces(amount: Big): number {
  return Math.max(0, amount.c.length - amount.e - 1);
}

/** Canonical text: no exponent, no trailing zeros, never "-0". */
export function canonicalDecimal(amount: Big): string {
  return amount.eq(0) ? '0' : amount.toFixed();
}
