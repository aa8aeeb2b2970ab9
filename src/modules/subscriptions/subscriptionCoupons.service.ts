import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { endRedemption, listRedemptions, redeemCoupon } from '../coupons/index.ts';
import type { AppliedRedemption } from '../coupons/index.ts';
import { findSubscriptionRecord } from './subscription.repository.ts';
import { lockSubscription } from './subscriptionEditing.ts';

/**
 * Redeems a coupon on one subscription (docs/credits.md, "Coupons"), the subscription held meanwhile so that the
 * bill run does not bill it between the check and the redemption.
 */
export function redeemSubscriptionCoupon(
  ctx: ServiceContext,
  subscriptionId: number,
  code: string,
  options: { fromPortal?: boolean } = {},
): Promise<AppliedRedemption> {
  return withTransaction(ctx, async (tctx) => {
    const row = await lockSubscription(tctx, subscriptionId);
    return redeemCoupon(
      tctx,
      {
        customerId: row.customerId,
        subscriptionId,
        currencyCode: row.currencyCode,
        packageId: row.packageId,
      },
      code,
      options,
    );
  });
}

async function assertSubscriptionExists(ctx: ServiceContext, subscriptionId: number): Promise<void> {
  if (!(await findSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId))) {
    throw new NotFoundError('Subscription', subscriptionId);
  }
}

export async function listSubscriptionCoupons(
  ctx: ServiceContext,
  subscriptionId: number,
  page: Page,
): Promise<AppliedRedemption[]> {
  await assertSubscriptionExists(ctx, subscriptionId);
  return listRedemptions(ctx, { subscriptionId }, page);
}

export async function endSubscriptionCoupon(
  ctx: ServiceContext,
  subscriptionId: number,
  redemptionId: number,
): Promise<AppliedRedemption> {
  await assertSubscriptionExists(ctx, subscriptionId);
  return endRedemption(ctx, { subscriptionId }, redemptionId);
}
