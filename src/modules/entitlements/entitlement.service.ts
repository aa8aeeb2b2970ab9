import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { assertCustomerExists } from '../customers/index.ts';
import {
  currentBillingPeriod,
  liveSubscriptionIdsOfCustomer,
  subscriptionsByIds,
} from '../subscriptions/index.ts';
import type { UsagePeriod } from '../subscriptions/index.ts';
import { governingGrant, grantOf, remainingOf } from './entitlements.ts';
import type { SubscriptionGrant } from './entitlements.ts';
import { featuresByIds, getFeatureByCode } from './feature.service.ts';
import type { FeatureView } from './feature.service.ts';
import { listValuesFor } from './featureValue.repository.ts';
import type { FeatureValue } from './feature.ts';
import { usedInPeriod } from './usedAmount.ts';

/** What a customer's live subscriptions give of one feature (docs/usage.md, "Entitlements"). */
export interface Entitlement {
  feature: FeatureView;
  /** The subscription whose grant counts: the first created that gives the feature enabled. */
  governing: SubscriptionGrant | undefined;
  /** Each live subscription's grant of the feature, by subscription id. */
  grants: SubscriptionGrant[];
}

/** One feature checked now: an entitlement with, for a limit, its period and what is used and left of it. */
export interface EntitlementCheck extends Entitlement {
  period: UsagePeriod | null;
  used: string | null;
  remaining: string | null;
}

/** A subscription in force today: started, not cancelled or ended. */
interface LiveSubscription {
  id: number;
  packageId: number;
}

/** Every feature the customer's live subscriptions give, by feature code. */
export async function listEntitlements(ctx: ServiceContext, customerId: number): Promise<Entitlement[]> {
  await assertCustomerExists(ctx, customerId);
  const subscriptions = await liveSubscriptions(ctx, customerId);
  const values = await valuesOf(ctx, subscriptions);
  const features = await featuresByIds(ctx, [...new Set(values.map((v) => v.featureId))]);
  return [...features.values()]
    .map((feature) => entitlementOf(feature, subscriptions, values))
    .sort((a, b) => (a.feature.code < b.feature.code ? -1 : a.feature.code > b.feature.code ? 1 : 0));
}

/**
 * One feature for the customer now: whether it is allowed, and for a limit feature the governing subscription's
 * limit, what its current billing period has used of the feature's metric, and what remains. Run under the
 * customer's lock by the check-and-record, so that nothing is recorded between this read and its decision.
 */
export async function checkEntitlement(
  ctx: ServiceContext,
  customerId: number,
  featureCode: string,
): Promise<EntitlementCheck> {
  await assertCustomerExists(ctx, customerId);
  const found = await getFeatureByCode(ctx, featureCode);
  const feature = (await featuresByIds(ctx, [found.id])).get(found.id)!;
  const subscriptions = await liveSubscriptions(ctx, customerId);
  const entitlement = entitlementOf(feature, subscriptions, await valuesOf(ctx, subscriptions, feature.id));
  const governing = entitlement.governing;
  if (feature.type !== 'limit' || governing === undefined || feature.metricId === null) {
    return { ...entitlement, period: null, used: null, remaining: null };
  }
  const period = await currentBillingPeriod(ctx, governing.subscriptionId);
  const used =
    period === null ? '0' : await usedInPeriod(ctx, governing.subscriptionId, feature.metricId, period);
  return { ...entitlement, period, used, remaining: remainingOf(governing.grant.limit, used) };
}

/**
 * The customer's subscriptions that give features today: not cancelled or ended, not paused, and started (a future
 * one gives nothing before its start date).
 */
async function liveSubscriptions(ctx: ServiceContext, customerId: number): Promise<LiveSubscription[]> {
  const ids = await liveSubscriptionIdsOfCustomer(ctx, customerId);
  const day = today(ctx);
  return (
    [...(await subscriptionsByIds(ctx, ids)).values()]
      // A paused subscription gives nothing while paused (docs/subscriptions.md, "Pause and resume").
      .filter((s) => s.startDate <= day && s.status !== 'Paused')
      .map((s) => ({ id: s.id, packageId: s.packageId }))
      .sort((a, b) => a.id - b.id)
  );
}

function valuesOf(
  ctx: ServiceContext,
  subscriptions: readonly LiveSubscription[],
  featureId?: number,
): Promise<FeatureValue[]> {
  const owners = {
    packageIds: [...new Set(subscriptions.map((s) => s.packageId))],
    subscriptionIds: subscriptions.map((s) => s.id),
  };
  return listValuesFor(ctx.db, ctx.account.id, owners, featureId);
}

function entitlementOf(
  feature: FeatureView,
  subscriptions: readonly LiveSubscription[],
  values: readonly FeatureValue[],
): Entitlement {
  const ofFeature = values.filter((v) => v.featureId === feature.id);
  const grants = subscriptions.flatMap((s) => {
    const packageValue = ofFeature.find((v) => v.owner.type === 'package' && v.owner.id === s.packageId);
    const override = ofFeature.find((v) => v.owner.type === 'subscription' && v.owner.id === s.id);
    const grant = grantOf(s.id, packageValue, override);
    return grant ? [grant] : [];
  });
  return { feature, governing: governingGrant(grants), grants };
}
