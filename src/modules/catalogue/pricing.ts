import Big from 'big.js';
import { PRICE_DECIMALS } from '../../core/money.ts';

/**
 * Usage pricing by quantity brackets (spec, Component: Scheme unit or volume; Bracket price: Price, QtyFrom,
 * QtyTill, null or blank = no upper bound), with the flat fee per bracket and the stairstep scheme that the other
 * billing systems have (docs/pricing.md, "Usage schemes"). Pure and exact: decimal strings in, a decimal string
 * out, big.js for the arithmetic (+ and × are exact there). Nothing is rounded here: the money module rounds the
 * line amount to the currency's minor unit, once. The package scheme, which has no brackets, is in
 * packagePricing.ts; usageCharge.ts picks between the two and describes the charge.
 *
 * Brackets (validateBrackets checks these; priceUsage refuses brackets that break them):
 * 1. There is at least one bracket, written in whole units as the original service writes them (1..10, 11..20,
 *    21..): QtyFrom and QtyTill are whole numbers and QtyTill is inclusive.
 * 2. The first QtyFrom is 1 or 0; both mean "from the first unit".
 * 3. Each next QtyFrom is the previous QtyTill + 1: no gaps, no overlaps, ascending order.
 * 4. Each QtyTill is at least its QtyFrom and at least 1 (a bracket holds at least one unit).
 * 5. The last bracket is open (QtyTill null) and it is the only open one, so every quantity has a price. A blank
 *    QtyTill on the wire becomes null before it reaches this module.
 * 6. Prices and flat prices are non-negative decimals with at most 4 decimals (trailing zeros aside: "0.8000" is
 *    fine). FlatPrice is optional (null = none) except under stairstep, where every bracket has one and each
 *    Price is 0 (validateSchemeBrackets).
 *
 * Quantities may be fractional (metered usage such as 10.5 GB). Bracket k covers the half-open interval
 * (QtyTill of bracket k-1, QtyTill of bracket k], starting from 0 and open-ended after the last bracket; for
 * whole quantities that is exactly QtyFrom..QtyTill. So 10.5 lies in 11..20. A negative quantity, or one that is
 * not a plain decimal string ("1e3", " 1"), throws a RangeError.
 *
 * Quantity 0 lies in no bracket, so it charges nothing, unless the first bracket is written from 0 (QtyFrom 0):
 * then 0 lies in that bracket, which charges its flat fee (the unit price × 0 adds nothing). This is the one
 * place where QtyFrom 0 and 1 differ, and only for flat fees: "a fee for having the add-on at all" is written
 * 0..N, "a fee once usage starts" 1..N. Without flat fees both charge 0, as before.
 *
 * Schemes:
 * - unit (graduated): each part of the quantity is priced by the bracket it falls in, and the parts are summed;
 *   each bracket reached also adds its flat fee once.
 * - volume: the whole quantity is priced at the bracket that contains the total, plus that bracket's flat fee.
 *   NOTE: the charge can drop when the quantity crosses into a cheaper bracket (10 units can cost more than 11).
 *   That is the scheme, not a bug.
 * - stairstep: the flat fee of the bracket that contains the total, nothing per unit.
 *
 * Worked example, brackets 1–10 at 1.00, 11–20 at 0.80, 21+ at 0.50:
 *   unit 25     = 10 × 1.00 + 10 × 0.80 + 5 × 0.50 = 20.50
 *   unit 10.5   = 10 × 1.00 + 0.5 × 0.80            = 10.40
 *   volume 25   = 25 × 0.50   = 12.50
 *   volume 10   = 10 × 1.00   = 10.00
 *   volume 10.5 = 10.5 × 0.80 = 8.40
 *   volume 11   = 11 × 0.80   = 8.80
 * The same with flat fees 5.00, 10.00 and 0 on the three brackets:
 *   unit 25     = 20.50 + 5.00 + 10.00 = 35.50 (all three brackets reached)
 *   unit 10     = 10.00 + 5.00         = 15.00 (only the first)
 *   volume 25   = 12.50 + 0            = 12.50
 *   volume 11   = 8.80 + 10.00         = 18.80
 * Results are canonical decimal strings, never in exponent form and without trailing zeros: "20.5", "10", "8.8".
 */
export const SCHEMES = ['unit', 'volume', 'package', 'stairstep'] as const;
export type Scheme = (typeof SCHEMES)[number];
/** The schemes priced by brackets; package is priced by blocks (packagePricing.ts). */
export type BracketScheme = Exclude<Scheme, 'package'>;

export interface Bracket {
  qtyFrom: string;
  qtyTill: string | null;
  price: string;
  /** Charged once when the bracket is reached (unit) or holds the quantity (volume, stairstep); null = none. */
  flatPrice?: string | null;
}

export interface BracketProblem {
  /** Position of the bracket in the list; -1 when the problem is the list itself (it is empty). */
  index: number;
  field?: 'qtyFrom' | 'qtyTill' | 'price' | 'flatPrice';
  message: string;
}

// NOTE: a private constructor in strict mode refuses JS numbers, so no binary float can reach the arithmetic;
// the widest exponent limits keep toString (used in messages) out of exponent form.
export const PriceDecimal = Big();
PriceDecimal.strict = true;
PriceDecimal.NE = -1e6;
PriceDecimal.PE = 1e6;

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;
export const PRICE_ZERO = new PriceDecimal('0');
const ONE = new PriceDecimal('1');

export function isScheme(value: string): value is Scheme {
  return (SCHEMES as readonly string[]).includes(value);
}

export function parseDecimal(text: unknown): Big | undefined {
  return typeof text === 'string' && PLAIN_DECIMAL.test(text) ? new PriceDecimal(text) : undefined;
}

export function hasAtMostDecimals(value: Big, digits: number): boolean {
  return value.round(digits, PriceDecimal.roundDown).eq(value);
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

function checkPrice(
  text: unknown,
  index: number,
  field: 'price' | 'flatPrice',
  problems: BracketProblem[],
): void {
  const name = field === 'price' ? 'Price' : 'FlatPrice';
  const price = parseDecimal(text);
  if (price === undefined) {
    problems.push({ index, field, message: `${name} must be a non-negative decimal number` });
  } else if (!hasAtMostDecimals(price, PRICE_DECIMALS)) {
    problems.push({ index, field, message: `${name} must have at most ${PRICE_DECIMALS} decimals` });
  }
}

/**
 * What a scheme asks of valid brackets beyond the bracket rules: stairstep charges only flat fees, so each bracket
 * has a FlatPrice and a Price of 0 (a per-unit price there would be volume pricing under another name).
 */
export function validateSchemeBrackets(
  scheme: BracketScheme,
  brackets: readonly Bracket[],
): BracketProblem[] {
  if (scheme !== 'stairstep') return [];
  const problems: BracketProblem[] = [];
  brackets.forEach((bracket, index) => {
    if (bracket.flatPrice === undefined || bracket.flatPrice === null) {
      problems.push({
        index,
        field: 'flatPrice',
        message: 'FlatPrice is required under the stairstep scheme',
      });
    }
    const price = parseDecimal(bracket.price);
    if (price && !price.eq(PRICE_ZERO)) {
      problems.push({
        index,
        field: 'price',
        message: 'Price must be 0 under the stairstep scheme (the bracket charges its FlatPrice)',
      });
    }
  });
  return problems;
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

    checkPrice(bracket.price, index, 'price', problems);
    if (bracket.flatPrice !== undefined && bracket.flatPrice !== null) {
      checkPrice(bracket.flatPrice, index, 'flatPrice', problems);
    }

    if (from !== undefined && till) {
      if (till.lt(from)) {
        problems.push({ index, field: 'qtyTill', message: `QtyTill ${till} is below QtyFrom ${from}` });
      } else if (till.lt(ONE)) {
        problems.push({ index, field: 'qtyTill', message: 'QtyTill must be at least 1' });
      }
    }

    if (from !== undefined && index === 0 && !from.eq(PRICE_ZERO) && !from.eq(ONE)) {
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

export function parseQuantity(quantity: string): Big {
  if (typeof quantity === 'string' && quantity.startsWith('-')) {
    throw new RangeError(`quantity must not be negative: ${quantity}`);
  }
  const value = parseDecimal(quantity);
  if (value === undefined)
    throw new RangeError(`quantity must be a plain decimal string: ${String(quantity)}`);
  return value;
}

export interface Tier {
  /** Exclusive: the previous bracket's QtyTill, or 0 for the first. */
  lower: Big;
  /** Inclusive; null when open. */
  upper: Big | null;
  price: Big;
  flat: Big;
  /** The bracket as written, for descriptions. */
  bracket: Bracket;
  /** Quantity 0 lies in this bracket: it is the first and starts at 0. */
  holdsZero: boolean;
}

export function tiersOf(scheme: BracketScheme, brackets: readonly Bracket[]): Tier[] {
  const problem = [...validateBrackets(brackets), ...validateSchemeBrackets(scheme, brackets)][0];
  if (problem) throw new RangeError(`invalid brackets: bracket ${problem.index}: ${problem.message}`);
  let lower = PRICE_ZERO;
  return brackets.map((bracket, index) => {
    const upper = bracket.qtyTill === null ? null : new PriceDecimal(bracket.qtyTill);
    const tier = {
      lower,
      upper,
      price: new PriceDecimal(bracket.price),
      flat: new PriceDecimal(bracket.flatPrice ?? '0'),
      bracket,
      holdsZero: index === 0 && new PriceDecimal(bracket.qtyFrom).eq(PRICE_ZERO),
    };
    if (upper) lower = upper;
    return tier;
  });
}

/** Whether the tier holds the quantity (volume, stairstep) or is reached by it (unit). */
function holds(tier: Tier, qty: Big): boolean {
  return (
    (qty.gt(tier.lower) || (qty.eq(PRICE_ZERO) && tier.holdsZero)) &&
    (tier.upper === null || qty.lte(tier.upper))
  );
}

function reaches(tier: Tier, qty: Big): boolean {
  return qty.gt(tier.lower) || (qty.eq(PRICE_ZERO) && tier.holdsZero);
}

/** The tiers a quantity is charged by, each with the units it prices there: every one reached under unit. */
export function chargedTiers(
  scheme: BracketScheme,
  tiers: readonly Tier[],
  qty: Big,
): { tier: Tier; units: Big }[] {
  if (scheme === 'unit') {
    return tiers
      .filter((tier) => reaches(tier, qty))
      .map((tier) => ({
        tier,
        units: (tier.upper && tier.upper.lt(qty) ? tier.upper : qty).minus(tier.lower),
      }));
  }
  const tier = tiers.find((t) => holds(t, qty));
  if (!tier) return [];
  return [{ tier, units: qty }];
}

/** The exact charge for a quantity under a scheme's brackets, unrounded, as a canonical decimal string. */
export function priceUsage(scheme: Scheme, brackets: readonly Bracket[], quantity: string): string {
  if (!isScheme(scheme) || scheme === 'package') {
    throw new RangeError(`unknown bracket pricing scheme: ${String(scheme)}`);
  }
  const qty = parseQuantity(quantity);
  const tiers = tiersOf(scheme, brackets);
  let charge = PRICE_ZERO;
  for (const { tier, units } of chargedTiers(scheme, tiers, qty)) {
    charge = charge.plus(tier.flat);
    if (scheme !== 'stairstep') charge = charge.plus(units.times(tier.price));
  }
  // toFixed() without digits is Big's normal notation: exact, never in exponent form.
  return charge.toFixed();
}
