/**
 * Coupons (docs/credits.md, "Coupons"): codes with a percentage or an amount off, redeemed on a customer or a
 * subscription and counted exactly; the pure discount core the subscriptions' billing applies. Routes:
 * coupons.routes.ts (a subscription's redemptions: subscriptions' subscriptionCoupons.routes.ts).
 */
export type { AppliedRedemption, Coupon, CouponDiscount, CouponRedemption } from './coupon.ts';
export { periodsLeft } from './coupon.ts';
export type { CouponToApply, PeriodFraction } from './discounts.ts';
export { discountLines } from './discounts.ts';
export { discountLineText, couponAppliesToLine } from './couponLines.ts';
export type { CouponLineSource } from './couponLines.ts';
export { couponsByIds, hasPortalCoupons } from './coupon.service.ts';
export type { RedemptionOwner, RedemptionTarget } from './redemption.service.ts';
export {
  endRedemption,
  getRedemption,
  listRedemptions,
  recordPeriodsUsed,
  redeemCoupon,
  redemptionsByIds,
  redemptionsForBilling,
} from './redemption.service.ts';
export { CouponListQuery, RedeemBody, RedemptionOut } from './coupons.schemas.ts';
export { toCouponDto, toRedemptionDto } from './coupons.serializer.ts';

/** Every event type this module emits (docs/event-catalogue.md lists them). */
export const COUPON_EVENT_TYPES = [
  'coupon.created',
  'coupon.updated',
  'coupon.archived',
  'coupon.redeemed',
  'coupon.ended',
] as const;
export { copyCoupons } from './couponCopy.repository.ts';
