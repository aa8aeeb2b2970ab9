import { minorToDecimalText } from '../../core/money.ts';
import type { Coupon } from './coupon.ts';
import type { PeriodFraction } from './discounts.ts';

/** What an invoice line bills, as far as a coupon's AppliesTo cares: a package's price, or a component's usage. */
export type CouponLineSource =
  { kind: 'package'; packageId: number } | { kind: 'component'; componentId: number };

/**
 * Whether the coupon may discount a line (docs/credits.md, "Coupons"): every line without AppliesTo; with it, the
 * package lines (its price, setup and trial fees) of the packages named and the usage lines of the components
 * named.
 */
export function couponAppliesToLine(
  coupon: Pick<Coupon, 'packageIds' | 'componentIds'>,
  source: CouponLineSource,
): boolean {
  if (coupon.packageIds === null && coupon.componentIds === null) return true;
  return source.kind === 'package'
    ? (coupon.packageIds ?? []).includes(source.packageId)
    : (coupon.componentIds ?? []).includes(source.componentId);
}

/**
 * The invoice line naming a coupon's discount: "SPRING25: −25 %", "WELCOME: −10.00 USD", and for a fixed amount
 * prorated over a stub period "WELCOME: −10.00 USD pro-rated, 10 of 31 days".
 */
export function discountLineText(
  coupon: Pick<Coupon, 'code' | 'discount'>,
  fraction: PeriodFraction | null,
): string {
  const { discount } = coupon;
  if (discount.kind === 'percent') return `${coupon.code}: −${discount.percentOff} %`;
  const amount = `${coupon.code}: −${minorToDecimalText(discount.amountOffMinor, discount.currencyCode)} ${discount.currencyCode}`;
  return fraction === null
    ? amount
    : `${amount} pro-rated, ${fraction.numerator} of ${fraction.denominator} days`;
}
