import type { PlainDate } from '../../core/calendar.ts';

/** What a coupon's code may be: what a customer types, in upper case. */
export const COUPON_CODE = /^[A-Z0-9][A-Z0-9_-]{0,49}$/;

export const DISCOUNT_KINDS = ['percent', 'fixed'] as const;
export type DiscountKind = (typeof DISCOUNT_KINDS)[number];
export const COUPON_DURATIONS = ['once', 'repeating', 'forever'] as const;
export type CouponDuration = (typeof COUPON_DURATIONS)[number];

/** What a coupon takes off: a percentage of each line it applies to, or an amount in one currency. */
export type CouponDiscount =
  { kind: 'percent'; percentOff: string } | { kind: 'fixed'; amountOffMinor: number; currencyCode: string };

/** A coupon of an account (docs/credits.md, "Coupons"). */
export interface Coupon {
  id: number;
  code: string;
  name: string;
  discount: CouponDiscount;
  duration: CouponDuration;
  /** With `repeating`: how many billed periods it discounts. */
  durationPeriods: number | null;
  /** The last instant it may be redeemed; null: no limit. */
  redeemBy: string | null;
  maxRedemptions: number | null;
  redemptionCount: number;
  /** Null: every package (or component). */
  packageIds: number[] | null;
  componentIds: number[] | null;
  portalRedeemable: boolean;
  /** One the account may offer a customer who cancels (docs/portal.md, "Cancel with a way to stay"). */
  isRetention: boolean;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A coupon redeemed on a customer (subscriptionId null: every subscription of theirs) or on one subscription. */
export interface CouponRedemption {
  id: number;
  couponId: number;
  customerId: number;
  subscriptionId: number | null;
  redeemedOn: PlainDate;
  periodsUsed: number;
  endedAt: string | null;
  createdAt: string;
}

/** A redemption with its coupon, as billing applies it. */
export interface AppliedRedemption {
  redemption: CouponRedemption;
  coupon: Coupon;
}

/** How many more billed periods a redemption discounts; null: for ever. */
export function periodsLeft(
  coupon: Pick<Coupon, 'duration' | 'durationPeriods'>,
  periodsUsed: number,
): number | null {
  if (coupon.duration === 'forever') return null;
  const total = coupon.duration === 'once' ? 1 : (coupon.durationPeriods ?? 0);
  return Math.max(0, total - periodsUsed);
}
