import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, DomainError } from '../../errors.ts';
import { packagesByIds } from '../catalogue/index.ts';
import { couponsByIds, periodsLeft } from '../coupons/index.ts';
import type { Coupon } from '../coupons/index.ts';
import { emitEvent } from '../events/index.ts';
import {
  cancelSubscription,
  changeSubscriptionTerms,
  listSubscriptionCoupons,
  pauseSubscriptionAsCustomer,
  planSelfPause,
  redeemSubscriptionCoupon,
} from '../subscriptions/index.ts';
import type { SelfPausePlan, Subscription } from '../subscriptions/index.ts';
import * as repo from './retention.repository.ts';
import { getRetentionRules } from './retentionRules.service.ts';
import type { CancelReason, RecordKind, RetentionOffer } from './retention.ts';

/** Every event type this module emits (docs/event-catalogue.md lists them). */
export const RETENTION_EVENT_TYPES = [
  'retention.offer_shown',
  'retention.offer_taken',
  'retention.offer_declined',
] as const;

const EVENT_OF: Partial<Record<RecordKind, (typeof RETENTION_EVENT_TYPES)[number]>> = {
  shown: 'retention.offer_shown',
  taken: 'retention.offer_taken',
  declined: 'retention.offer_declined',
};

/** An offer the subscription can take now, with what the portal says of it. */
export type OfferToShow =
  | { kind: 'coupon'; key: string; offer: RetentionOffer & { kind: 'coupon' }; coupon: Coupon }
  | {
      kind: 'package';
      key: string;
      offer: RetentionOffer & { kind: 'package' };
      packageName: string;
      packageVersionId: number;
      chargePrice: string;
      chargeTerm: number;
      chargeTermType: string;
    }
  | { kind: 'pause'; key: string; offer: RetentionOffer & { kind: 'pause' }; plan: SelfPausePlan };

/** What names an offer in a form: its kind and ids, so that a change of the rules' order takes nothing else. */
export function offerKey(offer: RetentionOffer): string {
  if (offer.kind === 'coupon') return `coupon-${offer.couponId}`;
  if (offer.kind === 'package') return `package-${offer.packageId}-${offer.packageRateTermId}`;
  return 'pause';
}

/** The account's reasons, for the portal's select (its defaults when it set none). */
export async function cancelReasons(ctx: ServiceContext): Promise<CancelReason[]> {
  return (await getRetentionRules(ctx)).reasons;
}

/**
 * The reason's first offer the subscription can take, or undefined: a live retention coupon that applies to its
 * package and currency and is not already on it; a rate term in its currency other than its own, when no change is
 * already set for its renewal; a pause of MaxPauseDays from the end of the billed period, when the account lets
 * its customers pause (PortalPause) and this one is within its limits (docs/portal.md, "Pausing").
 */
export async function offerFor(
  ctx: ServiceContext,
  subscription: Subscription,
  reasonCode: string,
): Promise<OfferToShow | undefined> {
  const reason = (await cancelReasons(ctx)).find((r) => r.code === reasonCode);
  for (const offer of reason?.offers ?? []) {
    const shown = await usableOffer(ctx, subscription, offer);
    if (shown) return shown;
  }
  return undefined;
}

async function usableOffer(
  ctx: ServiceContext,
  s: Subscription,
  offer: RetentionOffer,
): Promise<OfferToShow | undefined> {
  const key = offerKey(offer);
  if (offer.kind === 'coupon') {
    const coupon = (await couponsByIds(ctx, [offer.couponId])).get(offer.couponId);
    if (!coupon || !coupon.isRetention || coupon.archivedAt !== null) return undefined;
    if (coupon.redeemBy !== null && coupon.redeemBy < nowInstant(ctx)) return undefined;
    if (coupon.maxRedemptions !== null && coupon.redemptionCount >= coupon.maxRedemptions) return undefined;
    if (coupon.discount.kind === 'fixed' && coupon.discount.currencyCode !== s.currencyCode) return undefined;
    if (coupon.packageIds !== null && !coupon.packageIds.includes(s.packageId)) return undefined;
    const onIt = await listSubscriptionCoupons(ctx, s.id, { limit: 200, offset: 0 });
    const live = onIt.some(
      (r) =>
        r.coupon.id === coupon.id &&
        r.redemption.endedAt === null &&
        periodsLeft(r.coupon, r.redemption.periodsUsed) !== 0,
    );
    return live ? undefined : { kind: 'coupon', key, offer, coupon };
  }
  if (offer.kind === 'pause') return usablePause(ctx, s, offer, key);
  // A change already set for the renewal (this offer taken before, or another) is not offered over again.
  if (offer.kind === 'package' && !s.isFutureChange) {
    const pkg = (await packagesByIds(ctx, [offer.packageId])).get(offer.packageId);
    if (!pkg || !pkg.isActive) return undefined;
    for (const version of pkg.versions.filter((v) => v.isActive)) {
      const rate = version.rates.find((r) => r.currencyCode === s.currencyCode);
      const term = rate?.terms.find((t) => t.id === offer.packageRateTermId);
      if (!term || term.id === s.packageRateTermId) continue;
      return {
        kind: 'package',
        key,
        offer,
        packageName: pkg.name,
        packageVersionId: version.id,
        chargePrice: term.chargePrice,
        chargeTerm: term.chargeTerm,
        chargeTermType: term.chargeTermType,
      };
    }
  }
  return undefined;
}

/**
 * A pause the subscription can take: planned as the portal's pause form plans it, for the account's MaxPauseDays
 * from the end of the billed period; none when pausing is off, the limits are reached or the subscription cannot
 * be paused (ended, set to end, paused already).
 */
async function usablePause(
  ctx: ServiceContext,
  s: Subscription,
  offer: RetentionOffer & { kind: 'pause' },
  key: string,
): Promise<OfferToShow | undefined> {
  const limits = ctx.account.portalSelfService.pause;
  if (!limits.allowed) return undefined;
  try {
    const plan = await planSelfPause(ctx, s.id, { days: limits.maxDays, source: 'retention' });
    return { kind: 'pause', key, offer, plan };
  } catch (error) {
    if (error instanceof DomainError && error.kind !== 'not_found') return undefined;
    throw error;
  }
}

/** Writes what happened in a cancel and, for an offer, its event, in the caller's transaction. */
async function record(
  tctx: ServiceContext,
  s: Subscription,
  kind: RecordKind,
  reason: string,
  offer: RetentionOffer | null,
): Promise<number> {
  const at = nowInstant(tctx);
  const id = await repo.insertRecord(
    tctx.db,
    tctx.account.id,
    { subscriptionId: s.id, customerId: s.customerId, kind, reason, offer, madeOn: today(tctx) },
    at,
  );
  const type = EVENT_OF[kind];
  if (type) await emitEvent(tctx, type, { type: 'retention_event', id });
  return id;
}

/** The offer is shown to the customer who gave this reason: recorded, and retention.offer_shown emitted. */
export function recordOfferShown(
  ctx: ServiceContext,
  s: Subscription,
  reason: string,
  shown: OfferToShow,
): Promise<number> {
  return withTransaction(ctx, (tctx) => record(tctx, s, 'shown', reason, shown.offer));
}

/**
 * Takes the offer named by `key` for this reason: a coupon redeemed on the subscription (as POST
 * /v1/subscriptions/{id}/coupons redeems it), the package's rate term from the next renewal (as PUT
 * .../changePackage at renewal), or a pause from the end of the billed period (docs/portal.md, "Pausing"). Nothing is cancelled. 409 `retention_offer_unavailable` when the reason no longer
 * offers it or the subscription can no longer take it.
 */
export async function takeRetentionOffer(
  ctx: ServiceContext,
  s: Subscription,
  reason: string,
  key: string,
): Promise<OfferToShow> {
  const shown = await offerFor(ctx, s, reason);
  if (!shown || shown.key !== key) {
    throw new ConflictError('retention_offer_unavailable', 'That offer is no longer available');
  }
  return withTransaction(ctx, async (tctx) => {
    if (shown.kind === 'coupon') {
      await redeemSubscriptionCoupon(tctx, s.id, shown.coupon.code);
    } else if (shown.kind === 'pause') {
      await pauseSubscriptionAsCustomer(tctx, s.id, shown.plan, 'retention');
    } else {
      await changeSubscriptionTerms(tctx, s.id, {
        packageId: shown.offer.packageId,
        packageVersionId: shown.packageVersionId,
        packageRateTermId: shown.offer.packageRateTermId,
        atRenewal: true,
      });
    }
    await record(tctx, s, 'taken', reason, shown.offer);
    return shown;
  });
}

/** Why the customer cancels, as the portal's form sent it, and the offer it declined (its key), if one was shown. */
export interface CancelRequest {
  reason: string;
  reasonLabel: string;
  details: string;
  declinedKey?: string;
}

/**
 * Cancels at the end of the period with the customer's reason, kept on the subscription (its CancelReason, which
 * subscription.cancelled carries) and in the audit log's Operation with what the customer added; a declined offer
 * is recorded and announced (retention.offer_declined) in the same transaction.
 */
export async function cancelWithReason(
  ctx: ServiceContext,
  s: Subscription,
  request: CancelRequest,
): Promise<void> {
  const { reason, reasonLabel, details } = request;
  const declined =
    request.declinedKey === undefined
      ? undefined
      : (await cancelReasons(ctx))
          .find((r) => r.code === reason)
          ?.offers.find((offer) => offerKey(offer) === request.declinedKey);
  const actor = ctx.actor && {
    ...ctx.actor,
    operation: `${ctx.actor.operation} (reason: ${reasonLabel}${details ? `; ${details}` : ''})`,
  };
  await withTransaction({ ...ctx, ...(actor ? { actor } : {}) }, async (tctx) => {
    if (declined) await record(tctx, s, 'declined', reason, declined);
    await cancelSubscription(tctx, s.id, 'renewal', { reason });
    await record(tctx, s, 'cancelled', reason, null);
  });
}
