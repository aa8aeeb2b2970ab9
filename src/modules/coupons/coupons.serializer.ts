import type { Static } from '@sinclair/typebox';
import { minorToDecimalText } from '../../core/money.ts';
import type { CouponBody, CouponEditBody, CouponOut, RedemptionOut } from './coupons.schemas.ts';
import type { CouponEditInput, CouponInput } from './coupon.service.ts';
import { periodsLeft } from './coupon.ts';
import type { AppliedRedemption, Coupon } from './coupon.ts';

export function couponEditFromWire(body: CouponEditBody): CouponEditInput {
  return {
    name: body.Name,
    redeemBy: body.RedeemBy ?? null,
    maxRedemptions: body.MaxRedemptions ?? null,
    packageIds: body.AppliesTo?.PackageIDs ?? null,
    componentIds: body.AppliesTo?.ComponentIDs ?? null,
    portalRedeemable: body.PortalRedeemable ?? false,
    isRetention: body.IsRetention ?? false,
  };
}

export function couponInputFromWire(body: CouponBody): CouponInput {
  return {
    ...couponEditFromWire(body),
    code: body.Code,
    percentOff: body.PercentOff ?? null,
    amountOff: body.AmountOff ?? null,
    currencyCode: body.CurrencyCode ?? null,
    duration: body.Duration,
    durationPeriods: body.DurationPeriods ?? null,
  };
}

export function toCouponDto(coupon: Coupon): Static<typeof CouponOut> {
  const { discount } = coupon;
  const restricted = coupon.packageIds !== null || coupon.componentIds !== null;
  return {
    couponID: coupon.id,
    Code: coupon.code,
    Name: coupon.name,
    Kind: discount.kind,
    PercentOff: discount.kind === 'percent' ? discount.percentOff : null,
    AmountOff:
      discount.kind === 'fixed' ? minorToDecimalText(discount.amountOffMinor, discount.currencyCode) : null,
    CurrencyCode: discount.kind === 'fixed' ? discount.currencyCode : null,
    Duration: coupon.duration,
    DurationPeriods: coupon.durationPeriods,
    RedeemBy: coupon.redeemBy,
    MaxRedemptions: coupon.maxRedemptions,
    RedemptionCount: coupon.redemptionCount,
    AppliesTo: restricted ? { PackageIDs: coupon.packageIds, ComponentIDs: coupon.componentIds } : null,
    PortalRedeemable: coupon.portalRedeemable,
    IsRetention: coupon.isRetention,
    Archived: coupon.archivedAt !== null,
    ArchivedAt: coupon.archivedAt,
    CreatedAt: coupon.createdAt,
    UpdatedAt: coupon.updatedAt,
  };
}

export function toRedemptionDto({ redemption, coupon }: AppliedRedemption): Static<typeof RedemptionOut> {
  const left = periodsLeft(coupon, redemption.periodsUsed);
  return {
    couponRedemptionID: redemption.id,
    couponID: coupon.id,
    Code: coupon.code,
    Name: coupon.name,
    customerID: redemption.customerId,
    subscriptionID: redemption.subscriptionId,
    RedeemedOn: redemption.redeemedOn,
    PeriodsUsed: redemption.periodsUsed,
    PeriodsLeft: left,
    Ended: redemption.endedAt !== null || left === 0,
    EndedAt: redemption.endedAt,
    CreatedAt: redemption.createdAt,
  };
}
