import type Big from 'big.js';
import { PRICE_DECIMALS } from '../../core/money.ts';
import { PriceDecimal, PRICE_ZERO, hasAtMostDecimals, parseDecimal, parseQuantity } from './pricing.ts';

/**
 * Package pricing (docs/pricing.md, "Usage schemes"): usage is sold in blocks of PackageSize units at Price a
 * block, after the first FreeUnits units, which cost nothing. A partial block costs a whole block, never more:
 * blocks = ceil(max(0, quantity − FreeUnits) / PackageSize), charge = blocks × Price. Pure and exact, like
 * pricing.ts, whose quantity rules (plain non-negative decimal strings, fractions allowed) apply here too.
 *
 * Worked example, blocks of 100 at 5.00 with the first 50 free:
 *   0   → 0 blocks          = 0
 *   50  → 0 blocks (free)   = 0
 *   51  → ceil(1 / 100)     = 1 block  = 5.00
 *   150 → ceil(100 / 100)   = 1 block  = 5.00
 *   151 → ceil(101 / 100)   = 2 blocks = 10.00
 *   350.5 → ceil(300.5 / 100) = 4 blocks = 20.00
 */
export interface PackagePrice {
  /** Units per block: a whole number, at least 1. */
  packageSize: string;
  /** Price per block, at most 4 decimals. */
  price: string;
  /** Units free before the first block: a whole number, 0 when null. */
  freeUnits: string | null;
}

export interface PackageProblem {
  field: 'packageSize' | 'price' | 'freeUnits';
  message: string;
}

const ONE = new PriceDecimal('1');

/** Every problem with a package price; an empty result means it is valid. */
export function validatePackagePrice(pack: PackagePrice): PackageProblem[] {
  const problems: PackageProblem[] = [];
  const size = parseDecimal(pack.packageSize);
  if (size === undefined || !hasAtMostDecimals(size, 0) || size.lt(ONE)) {
    problems.push({
      field: 'packageSize',
      message: 'PackageSize must be a whole number of units, at least 1',
    });
  }
  const price = parseDecimal(pack.price);
  if (price === undefined) {
    problems.push({ field: 'price', message: 'Price must be a non-negative decimal number' });
  } else if (!hasAtMostDecimals(price, PRICE_DECIMALS)) {
    problems.push({ field: 'price', message: `Price must have at most ${PRICE_DECIMALS} decimals` });
  }
  if (pack.freeUnits !== null) {
    const free = parseDecimal(pack.freeUnits);
    if (free === undefined || !hasAtMostDecimals(free, 0)) {
      problems.push({ field: 'freeUnits', message: 'FreeUnits must be a whole number of units, 0 or more' });
    }
  }
  return problems;
}

/** The blocks a quantity is billed as, with the free units taken off first. */
export function packageBlocks(pack: PackagePrice, quantity: string): Big {
  const problem = validatePackagePrice(pack)[0];
  if (problem) throw new RangeError(`invalid package price: ${problem.message}`);
  const qty = parseQuantity(quantity);
  const size = new PriceDecimal(pack.packageSize);
  const billable = qty.minus(new PriceDecimal(pack.freeUnits ?? '0'));
  if (billable.lte(PRICE_ZERO)) return PRICE_ZERO;
  // Exact ceiling: Big's division stops at 20 decimals, so the quotient is corrected by multiplying back.
  let blocks = billable.div(size).round(0, PriceDecimal.roundDown);
  while (blocks.times(size).gt(billable)) blocks = blocks.minus(ONE);
  while (blocks.times(size).lt(billable)) blocks = blocks.plus(ONE);
  return blocks;
}

/** The exact charge for a quantity in blocks, unrounded, as a canonical decimal string. */
export function pricePackage(pack: PackagePrice, quantity: string): string {
  return packageBlocks(pack, quantity).times(new PriceDecimal(pack.price)).toFixed();
}
