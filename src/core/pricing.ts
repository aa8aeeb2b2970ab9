import Big from 'big.js';
import { PRICE_DECIMALS } from './money.ts';

/**
 * Usage pricing by quantity brackets (spec, Component: Scheme unit or volume; Bracket price: Price, QtyFrom,
 * QtyTill, null or blank = no upper bound). Pure and exact: decimal strings in, a decimal string out, big.js for
 * the arithmetic (+ and × are exact there). Nothing is rounded here: the money module rounds the line amount to
 * the currency's minor unit, once.
 *
 * Brackets (validateBrackets checks these; priceUsage refuses brackets that break them):
 * 1. There is at least one bracket, written in whole units as the original service writes them (1..10, 11..20,
 *    21..): QtyFrom and QtyTill are whole numbers and QtyTill is inclusive.
 * 2. The first QtyFrom is 1 or 0; both mean "from the first unit".
 * 3. Each next QtyFrom is the previous QtyTill + 1: no gaps, no overlaps, ascending order.
 * 4. Each QtyTill is at least its QtyFrom and at least 1 (a bracket holds at least one unit).
 * 5. The last bracket is open (QtyTill null) and it is the only open one, so every quantity has a price. A blank
 *    QtyTill on the wire becomes null before it reaches this module.
 * 6. Prices are non-negative decimals with at most 4 decimals (trailing zeros aside: "0.8000" is fine).
 *
 * Quantities may be fractional (metered usage such as 10.5 GB). Bracket k covers the half-open interval
 * (QtyTill of bracket k-1, QtyTill of bracket k], starting from 0 and open-ended after the last bracket; for
 * whole quantities that is exactly QtyFrom..QtyTill. So 10.5 lies in 11..20. Quantity 0 charges 0; a negative
 * quantity, or one that is not a plain decimal string ("1e3", " 1"), throws a RangeError.
 *
 * Schemes:
 * - unit (graduated): each part of the quantity is priced by the bracket it falls in, and the parts are summed.
 * - volume: the whole quantity is priced at the bracket that contains the total. NOTE: the charge can drop when
 *   the quantity crosses into a cheaper bracket (10 units can cost more than 11). That is the scheme, not a bug.
 *
 * Worked example, brackets 1–10 at 1.00, 11–20 at 0.80, 21+ at 0.50:
 *   unit 25     = 10 × 1.00 + 10 × 0.80 + 5 × 0.50 = 20.50
 *   unit 10.5   = 10 × 1.00 + 0.5 × 0.80            = 10.40
 *   volume 25   = 25 × 0.50   = 12.50
 *   volume 10   = 10 × 1.00   = 10.00
 *   volume 10.5 = 10.5 × 0.80 = 8.40
 *   volume 11   = 11 × 0.80   = 8.80
 * Results are canonical decimal strings, never in exponent form and without trailing zeros: "20.5", "10", "8.8".
 */
export const SCHEMES = ['unit', 'volume'] as const;
export type Scheme = (typeof SCHEMES)[number];

export interface Bracket {
  qtyFrom: string;
  qtyTill: string | null;
  price: string;
}

export interface BracketProblem {
  /** Position of the bracket in the list; -1 when the problem is the list itself (it is empty). */
  index: number;
  field?: 'qtyFrom' | 'qtyTill' | 'price';
  message: string;
}

// NOTE: a private constructor in strict mode refuses JS numbers, so no binary float can reach the arithmetic;
// the widest exponent limits keep toString (used in messages) out of exponent form.
const Decimal = Big();
Decimal.strict = true;
Decimal.NE = -1e6;
Decimal.PE = 1e6;

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;
const ZERO = new Decimal('0');
const ONE = new Decimal('1');

export function isScheme(value: string): value is Scheme {
  return (SCHEMES as readonly string[]).includes(value);
}

function parseDecimal(text: unknown): Big | undefined {
  return typeof text === 'string' && PLAIN_DECIMAL.test(text) ? new Decimal(text) : undefined;
}

function hasAtMostDecimals(value: Big, digits: number): boolean {
  return value.round(digits, Decimal.roundDown).eq(value);
}

function parseBound(
  text: unknown,
  index: number,
  field: 'qtyFrom' | 'qtyTill',
  problems: BracketProblem[],
): Big | undefined {
  const name = field === 'qtyFrom' ? 'QtyFrom' : 'QtyTill';
  const value = parseDecimal(text);
  if (value === undefined) {
    problems.push({ index, field, message: `${name} must be a non-negative decimal number` });
    return undefined;
  }
  if (!hasAtMostDecimals(value, 0)) {
    problems.push({ index, field, message: `${name} must be a whole number of units` });
    return undefined;
  }
  return value;
}

/** Every problem with a bracket list, in list order; an empty result means the brackets are valid. */
export function validateBrackets(brackets: readonly Bracket[]): BracketProblem[] {
  if (brackets.length === 0) return [{ index: -1, message: 'at least one bracket is required' }];
  const problems: BracketProblem[] = [];
  const last = brackets.length - 1;
  let previousFrom: Big | undefined;
  let previousTill: Big | null | undefined;
  brackets.forEach((bracket, index) => {
    const from = parseBound(bracket.qtyFrom, index, 'qtyFrom', problems);
    let till: Big | null | undefined = null;
    if (bracket.qtyTill === null) {
      if (index < last) {
        problems.push({
          index,
          field: 'qtyTill',
          message: 'only the last bracket may be open (QtyTill null)',
        });
      }
    } else {
      till = parseBound(bracket.qtyTill, index, 'qtyTill', problems);
      if (index === last) {
        problems.push({
          index,
          field: 'qtyTill',
          message: 'the last bracket must be open (QtyTill null) so that every quantity has a price',
        });
      }
    }

    const price = parseDecimal(bracket.price);
    if (price === undefined) {
      problems.push({ index, field: 'price', message: 'Price must be a non-negative decimal number' });
    } else if (!hasAtMostDecimals(price, PRICE_DECIMALS)) {
      problems.push({ index, field: 'price', message: `Price must have at most ${PRICE_DECIMALS} decimals` });
    }

    if (from !== undefined && till) {
      if (till.lt(from)) {
        problems.push({ index, field: 'qtyTill', message: `QtyTill ${till} is below QtyFrom ${from}` });
      } else if (till.lt(ONE)) {
        problems.push({ index, field: 'qtyTill', message: 'QtyTill must be at least 1' });
      }
    }

    if (from !== undefined && index === 0 && !from.eq(ZERO) && !from.eq(ONE)) {
      problems.push({
        index,
        field: 'qtyFrom',
        message: `the first bracket must start at 0 or 1, not ${from}`,
      });
    }
    if (from !== undefined && index > 0 && previousTill) {
      const expected = previousTill.plus(ONE);
      if (from.gt(expected)) {
        problems.push({
          index,
          field: 'qtyFrom',
          message: `gap: units ${expected} to ${from.minus(ONE)} are in no bracket; QtyFrom must be ${expected}`,
        });
      } else if (previousFrom && from.lt(previousFrom)) {
        problems.push({
          index,
          field: 'qtyFrom',
          message: `brackets must ascend: QtyFrom ${from} is below the previous bracket's QtyFrom ${previousFrom}`,
        });
      } else if (from.lt(expected)) {
        problems.push({
          index,
          field: 'qtyFrom',
          message: `overlap: the previous bracket ends at ${previousTill}; QtyFrom must be ${expected}`,
        });
      }
    }
    previousFrom = from;
    previousTill = till;
  });
  return problems;
}

function parseQuantity(quantity: string): Big {
  if (typeof quantity === 'string' && quantity.startsWith('-')) {
    throw new RangeError(`quantity must not be negative: ${quantity}`);
  }
  const value = parseDecimal(quantity);
  if (value === undefined)
    throw new RangeError(`quantity must be a plain decimal string: ${String(quantity)}`);
  return value;
}

interface Tier {
  /** Exclusive: the previous bracket's QtyTill, or 0 for the first. */
  lower: Big;
  /** Inclusive; null when open. */
  upper: Big | null;
  price: Big;
}

function tiersOf(brackets: readonly Bracket[]): Tier[] {
  const problem = validateBrackets(brackets)[0];
  if (problem) throw new RangeError(`invalid brackets: bracket ${problem.index}: ${problem.message}`);
  let lower = ZERO;
  return brackets.map((bracket) => {
    const upper = bracket.qtyTill === null ? null : new Decimal(bracket.qtyTill);
    const tier = { lower, upper, price: new Decimal(bracket.price) };
    if (upper) lower = upper;
    return tier;
  });
}

/** The exact charge for a quantity under a scheme's brackets, unrounded, as a canonical decimal string. */
export function priceUsage(scheme: Scheme, brackets: readonly Bracket[], quantity: string): string {
  if (!isScheme(scheme)) throw new RangeError(`unknown pricing scheme: ${String(scheme)}`);
  const qty = parseQuantity(quantity);
  const tiers = tiersOf(brackets);
  if (qty.eq(ZERO)) return '0';

  if (scheme === 'unit') {
    let charge = ZERO;
    for (const tier of tiers) {
      if (qty.lte(tier.lower)) break;
      const top = tier.upper && tier.upper.lt(qty) ? tier.upper : qty;
      charge = charge.plus(top.minus(tier.lower).times(tier.price));
    }
    // toFixed() without digits is Big's normal notation: exact, never in exponent form.
    return charge.toFixed();
  }

  const tier = tiers.find((t) => qty.gt(t.lower) && (t.upper === null || qty.lte(t.upper)));
  // Unreachable for validated brackets (the last one is open); refuse rather than misprice.
  if (!tier) throw new RangeError(`no bracket holds quantity ${quantity}`);
  return qty.times(tier.price).toFixed();
}
