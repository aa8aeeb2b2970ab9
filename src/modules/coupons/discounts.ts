import Big from 'big.js';
import { fractionOfMinor, ratioOfMinor } from '../../core/money.ts';
import type { CouponDiscount } from './coupon.ts';

/**
 * Coupons' discounts on an invoice's lines (docs/credits.md, "Coupons"): pure, in minor units, with the pricing
 * core's one rounding rule (core/money.ts: half away from zero, once per line).
 *
 * - A percentage is taken from each line it applies to: round(line × percent / 100).
 * - A fixed amount (prorated first with the period's fraction when the period is a stub) is spread over the lines
 *   it applies to in proportion to their amounts: each line gets the floor of its exact share and the cents left
 *   go one by one to the largest remainders (the earlier line on a tie), so the shares add up to the amount.
 * - Nothing takes a line below zero: a line's discount is at most what earlier coupons left of it, and a coupon
 *   takes at most what is left of the whole invoice (lines below zero, a usage correction, count against it).
 *   A deduction of what earlier invoices already billed of the period (progressive billing, docs/usage.md,
 *   "Coupons") is the exception: it is not discounted and does not count against the coupon, whose discount of the
 *   period is taken whole; what that leaves below zero is the customer's credit.
 * - A line's amount is as listed: including tax on a tax-inclusive line, so the discount comes off the inclusive
 *   amount and the tax is split again from what is left (invoicing's invoiceMath.ts prices the discount line).
 *
 * Worked example, lines 60.00 and 40.00, a fixed 25.00: 15.00 and 10.00. Lines 10.00, 10.00, 10.00, a fixed
 * 10.00: exact shares 3.333… each, floors 3.33, one cent left goes to the first line: 3.34, 3.33, 3.33.
 */
export interface DiscountableLine {
  /** The line's amount as listed, in minor units (tax included on a tax-inclusive line). */
  amountMinor: number;
  /** Set on a deduction of what earlier invoices billed of the period (see above). */
  isDeduction?: boolean;
}

export interface CouponToApply {
  discount: CouponDiscount;
  /** Per line: whether the coupon's restriction lets it discount the line. */
  eligible: readonly boolean[];
}

/** A stub period's share of its whole term (days of days): a fixed amount is prorated with it. */
export interface PeriodFraction {
  numerator: number;
  denominator: number;
}

/** One coupon's discount: per line (0 where it takes nothing) and in all. */
export interface CouponDiscountResult {
  perLineMinor: number[];
  totalMinor: number;
}

/** The discounts of the coupons, applied in the order given, each on what the earlier ones left. */
export function discountLines(
  lines: readonly DiscountableLine[],
  coupons: readonly CouponToApply[],
  fraction: PeriodFraction | null = null,
): CouponDiscountResult[] {
  const remaining = lines.map((line) => line.amountMinor);
  return coupons.map((coupon) => {
    const open = remaining.map((amount, i) =>
      coupon.eligible[i] && amount > 0 && !lines[i]!.isDeduction ? amount : 0,
    );
    const invoiceLeft = Math.max(
      0,
      remaining.reduce((sum, amount, i) => (lines[i]!.isDeduction ? sum : sum + amount), 0),
    );
    const { discount } = coupon;
    let perLine =
      discount.kind === 'percent'
        ? open.map((amount) => fractionOfMinor(amount, percentFraction(discount.percentOff)))
        : spread(Math.min(fixedAmount(discount.amountOffMinor, fraction), sum(open)), open);
    if (sum(perLine) > invoiceLeft) perLine = spread(invoiceLeft, perLine);
    perLine.forEach((discount, i) => (remaining[i] = remaining[i]! - discount));
    return { perLineMinor: perLine, totalMinor: sum(perLine) };
  });
}

/** "25" → "0.25": a percentage as the fraction fractionOfMinor takes (exact: a division by 100). */
export function percentFraction(percentOff: string): string {
  return new Big(percentOff).div(100).toFixed();
}

function fixedAmount(amountOffMinor: number, fraction: PeriodFraction | null): number {
  return fraction === null
    ? amountOffMinor
    : ratioOfMinor(amountOffMinor, fraction.numerator, fraction.denominator);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/**
 * `amountMinor` (at most the weights' sum, all weights ≥ 0) in shares proportional to the weights: floors of the
 * exact shares, then one unit each to the largest remainders, the earlier on a tie. No share exceeds its weight.
 */
export function spread(amountMinor: number, weights: readonly number[]): number[] {
  const total = BigInt(sum(weights));
  if (total === 0n || amountMinor <= 0) return weights.map(() => 0);
  const amount = BigInt(amountMinor);
  const exact = weights.map((weight) => amount * BigInt(weight));
  const shares = exact.map((value) => value / total);
  let left = amount - shares.reduce((a, b) => a + b, 0n);
  const byRemainder = exact
    .map((value, i) => ({ i, remainder: value % total }))
    .filter((entry) => entry.remainder > 0n)
    .sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  for (const { i } of byRemainder) {
    if (left === 0n) break;
    shares[i] = shares[i]! + 1n;
    left -= 1n;
  }
  return shares.map(Number);
}
