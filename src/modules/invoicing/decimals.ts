import Big from 'big.js';
import { MAX_PRICE, PRICE_DECIMALS } from '../../core/money.ts';

/**
 * Exact decimals of invoice lines (Qty, UnitCostEx) and their display. Pure.
 *
 * A JSON number arrives as a binary double; its shortest round-trip spelling (`String(0.1)` is "0.1") is the
 * decimal the client wrote for up to 15 significant digits, so that text is what is read, as parseTaxPerc does.
 * A string is read as written, for clients that keep decimals exact. Nothing is rounded here: a value with more
 * decimals than allowed is refused.
 */
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;
const LIMIT = new Big(MAX_PRICE);

export interface DecimalRule {
  /** Qty must be above zero; UnitCostEx may be negative (a discount line). */
  positive: boolean;
}

export function parseWireDecimal(
  value: number | string,
  rule: DecimalRule,
): { value: string } | { message: string } {
  let amount: Big;
  if (typeof value === 'number') {
    // JSON.parse reads 1e400 as Infinity.
    if (!Number.isFinite(value)) return { message: 'must be a finite number' };
    amount = new Big(String(value));
  } else {
    const text = value.trim();
    if (!PLAIN_DECIMAL.test(text)) return { message: 'must be a decimal number (e.g. 12.5)' };
    amount = new Big(text);
  }
  if (rule.positive && amount.lte(0)) return { message: 'must be greater than 0' };
  if (Math.max(0, amount.c.length - amount.e - 1) > PRICE_DECIMALS) {
    return { message: `must have at most ${PRICE_DECIMALS} decimals` };
  }
  if (amount.abs().gt(LIMIT)) return { message: `must be at most ${MAX_PRICE} in size` };
  // Canonical text: no exponent, no trailing zeros, and no "-0".
  return { value: amount.eq(0) ? '0' : amount.toFixed() };
}

/**
 * Whether Qty × UnitCostEx stays within the bound of a price (99 999 999 999.9999 either way): every amount of the
 * line then converts to minor units exactly, and the invoice's figures survive as JSON numbers.
 */
export function isLineAmountWithinBounds(qty: string, unitCostEx: string): boolean {
  return new Big(qty).times(new Big(unitCostEx)).abs().lte(LIMIT);
}
