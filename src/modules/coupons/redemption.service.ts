import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { billingProfiles } from '../customers/index.ts';
import { emitEvent, emitEvents } from '../events/index.ts';
import * as repo from './coupon.repository.ts';
import { couponsByIds } from './coupon.service.ts';
import { COUPON_CODE, periodsLeft } from './coupon.ts';
import type { AppliedRedemption, Coupon } from './coupon.ts';

/** What a coupon is redeemed on: a customer (subscriptionId null: all its subscriptions) or one subscription. */
export interface RedemptionTarget {
  customerId: number;
  subscriptionId: number | null;
  /** The customer's (or the subscription's) currency: a fixed coupon must be in it. */
  currencyCode: string;
  /** The subscription's package, checked against the coupon's PackageIDs; null for a customer. */
  packageId: number | null;
}

/** Whose redemptions a list or an end names. */
export type RedemptionOwner = { customerId: number } | { subscriptionId: number };

const redemptionRef = (id: number) => ({ type: 'coupon_redemption', id });

/** Redemptions by id with their coupons, each as its GET answers it; ids of another account left out. */
export async function redemptionsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, AppliedRedemption>> {
  return withCoupons(ctx, await repo.findRedemptions(ctx.db, ctx.account.id, ids));
}

async function withCoupons(
  ctx: ServiceContext,
  redemptions: Awaited<ReturnType<typeof repo.findRedemptions>>,
): Promise<Map<number, AppliedRedemption>> {
  const coupons = await couponsByIds(
    ctx,
    redemptions.map((r) => r.couponId),
  );
  return new Map(
    redemptions.map((redemption) => [
      redemption.id,
      { redemption, coupon: coupons.get(redemption.couponId)! },
    ]),
  );
}

/** The customer's currency, or a 404 when it is not one of the account's customers. */
export async function customerTarget(ctx: ServiceContext, customerId: number): Promise<RedemptionTarget> {
  const profile = (await billingProfiles(ctx, [customerId])).get(customerId);
  if (!profile) throw new NotFoundError('Customer', customerId);
  return { customerId, subscriptionId: null, currencyCode: profile.currencyCode, packageId: null };
}

/**
 * Redeems the coupon of this code on the target. The count is taken by one conditional update in the
 * redemption's transaction (repo.countRedemption), so no limit is ever passed however many redeem at once.
 */
export async function redeemCoupon(
  ctx: ServiceContext,
  target: RedemptionTarget,
  codeText: string,
  options: { fromPortal?: boolean } = {},
): Promise<AppliedRedemption> {
  const code = codeText.trim().toUpperCase();
  const unknown = () =>
    ValidationError.field('Code', `no coupon has the code ${code.slice(0, 50)}`, 'coupon_not_found');
  // A code no coupon could have is not looked up: it may hold what a text column refuses (a NUL).
  if (!COUPON_CODE.test(code)) throw unknown();
  const id = await withTransaction(ctx, async (tctx) => {
    const coupon = await repo.findCouponByCode(tctx.db, ctx.account.id, code);
    // In the portal, a coupon not offered there is as unknown as one that does not exist.
    if (!coupon || (options.fromPortal && !coupon.portalRedeemable)) throw unknown();
    assertRedeemable(ctx, coupon, target);
    // The count first: its update locks the coupon's row until this transaction ends, so two redemptions of one
    // coupon on one target take turns and the second sees the first's redemption (a failed check rolls the count
    // back).
    const counted = await repo.countRedemption(tctx.db, ctx.account.id, coupon.id);
    if (await repo.hasLiveRedemption(tctx.db, ctx.account.id, coupon.id, target)) {
      throw new ConflictError('coupon_already_redeemed', `Coupon ${code} is already redeemed here`);
    }
    if (!counted) {
      throw new ConflictError(
        'coupon_exhausted',
        `Coupon ${code} has been redeemed ${coupon.maxRedemptions} times, its MaxRedemptions`,
      );
    }
    const redemptionId = await repo.insertRedemption(
      tctx.db,
      ctx.account.id,
      {
        couponId: coupon.id,
        customerId: target.customerId,
        subscriptionId: target.subscriptionId,
        redeemedOn: today(ctx),
      },
      nowInstant(ctx),
    );
    await emitEvent(tctx, 'coupon.redeemed', redemptionRef(redemptionId));
    return redemptionId;
  });
  return getRedemption(ctx, id);
}

/** The 409s of a coupon that cannot be redeemed here (docs/credits.md, "Coupons"). */
function assertRedeemable(ctx: ServiceContext, coupon: Coupon, target: RedemptionTarget): void {
  if (coupon.archivedAt !== null) {
    throw new ConflictError(
      'coupon_archived',
      `Coupon ${coupon.code} is archived and can no longer be redeemed`,
    );
  }
  if (coupon.redeemBy !== null && nowInstant(ctx) > coupon.redeemBy) {
    throw new ConflictError(
      'coupon_expired',
      `Coupon ${coupon.code} could be redeemed until ${coupon.redeemBy}`,
    );
  }
  if (coupon.discount.kind === 'fixed' && coupon.discount.currencyCode !== target.currencyCode) {
    throw new ConflictError(
      'coupon_currency_mismatch',
      `Coupon ${coupon.code} is an amount in ${coupon.discount.currencyCode}; this is billed in ${target.currencyCode}`,
    );
  }
  if (target.packageId !== null && coupon.packageIds !== null && coupon.componentIds === null) {
    if (!coupon.packageIds.includes(target.packageId)) {
      throw new ConflictError(
        'coupon_not_applicable',
        `Coupon ${coupon.code} applies only to packages ${coupon.packageIds.join(', ')}`,
      );
    }
  }
}

export async function getRedemption(ctx: ServiceContext, redemptionId: number): Promise<AppliedRedemption> {
  const found = (await redemptionsByIds(ctx, [redemptionId])).get(redemptionId);
  if (!found) throw new NotFoundError('Coupon redemption', redemptionId);
  return found;
}

/** The redemptions made on a customer itself, or on a subscription, ended ones too, oldest first. */
export async function listRedemptions(
  ctx: ServiceContext,
  owner: RedemptionOwner,
  page: Page,
): Promise<AppliedRedemption[]> {
  const list = await repo.listRedemptionsOf(ctx.db, ctx.account.id, owner, page);
  const byId = await withCoupons(ctx, list);
  return list.map((r) => byId.get(r.id)!);
}

/**
 * Ends a redemption: it discounts no invoice made from now on; the invoices it discounted stay as they are. A
 * 404 when it is not the owner's.
 */
export async function endRedemption(
  ctx: ServiceContext,
  owner: RedemptionOwner,
  redemptionId: number,
): Promise<AppliedRedemption> {
  const found = await getRedemption(ctx, redemptionId);
  const { redemption } = found;
  const mine =
    'customerId' in owner
      ? redemption.customerId === owner.customerId && redemption.subscriptionId === null
      : redemption.subscriptionId === owner.subscriptionId;
  if (!mine) throw new NotFoundError('Coupon redemption', redemptionId);
  await withTransaction(ctx, async (tctx) => {
    if (await repo.endRedemption(tctx.db, ctx.account.id, redemptionId, nowInstant(ctx))) {
      await emitEvent(tctx, 'coupon.ended', redemptionRef(redemptionId));
    }
  });
  return getRedemption(ctx, redemptionId);
}

/**
 * The live redemptions that may discount these subscriptions' invoices (their own and their customers'), with
 * their coupons, held by the caller's transaction until it records the periods used (recordPeriodsUsed).
 */
export async function redemptionsForBilling(
  ctx: ServiceContext,
  targets: { customerIds: readonly number[]; subscriptionIds: readonly number[] },
): Promise<AppliedRedemption[]> {
  const live = await repo.lockLiveRedemptionsFor(ctx.db, ctx.account.id, targets);
  const byId = await withCoupons(ctx, live);
  return live.map((r) => byId.get(r.id)!);
}

/**
 * Adds the billed periods each redemption discounted, in the transaction that made their invoices; a redemption
 * that this used up is `coupon.ended`, as one ended by hand is.
 */
export async function recordPeriodsUsed(
  ctx: ServiceContext,
  uses: ReadonlyMap<number, number>,
): Promise<void> {
  if (uses.size === 0) return;
  await repo.addPeriodsUsed(
    ctx.db,
    ctx.account.id,
    [...uses].map(([redemptionId, periods]) => ({ redemptionId, periods })),
  );
  const after = await redemptionsByIds(ctx, [...uses.keys()]);
  const usedUp = [...after.values()].filter(({ coupon, redemption }) => {
    const before = redemption.periodsUsed - (uses.get(redemption.id) ?? 0);
    return periodsLeft(coupon, before) !== 0 && periodsLeft(coupon, redemption.periodsUsed) === 0;
  });
  await emitEvents(
    ctx,
    usedUp.map(({ redemption }) => ({ type: 'coupon.ended', ref: redemptionRef(redemption.id) })),
  );
}
