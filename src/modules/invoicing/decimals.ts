import Big from 'big.js';
import { MAX_PRICE, PRICE_DECIMALS } from '../../core/money.ts';
import { canonicalDecimal, decimalPlaces, readWireDecimal } from '../../core/wireDecimal.ts';

/**
 * Exact decimals of invoice lines (Qty, UnitCostEx), read by the core's one wire-decimal reader. Pure. Nothing
 * is rounded here: a value with more decimals than allowed is refused.
 */
const LIMIT = new Big(MAX_PRICE);

export interface DecimalRule {
  /** Qty must be above zero; UnitCostEx may be negative (a discount line). */
  positive: boolean;
}

export function parseWireDecimal(
  value: number | string,
  rule: DecimalRule,
): { value: string } | { message: string } {
  const read = readWireDecimal(value);
  if ('problem' in read) {
    return {
      message:
        read.problem === 'not_finite' ? 'must be a finite number' : 'must be a decimal number (e.g. 12.5)',
    };
  }
  const amount = read.value;
  if (rule.positive && amount.lte(0)) return { message: 'must be greater than 0' };
  if (decimalPlaces(amount) > PRICE_DECIMALS)
    return { message: `must have at most ${PRICE_DECIMALS} decimals` };
  if (amount.abs().gt(LIMIT)) return { message: `must be at most ${MAX_PRICE} in size` };
  return { value: canonicalDecimal(amount) };
}
