import Big from 'big.js';
import { canonicalDecimal } from '../../core/wireDecimal.ts';
import type { Grant } from './feature.ts';

/**
 * How a customer's subscriptions combine into what the customer is entitled to (docs/usage.md, "Entitlements").
 * Pure: the service reads the grants and the usage, these rules decide.
 */

/** What one live subscription gives of a feature: its package's grant, replaced whole by its override. */
export interface SubscriptionGrant {
  subscriptionId: number;
  source: 'package' | 'override';
  grant: Grant;
}

/** The subscription's grant of the feature, if it has one: an override wins over its package's value. */
export function grantOf(
  subscriptionId: number,
  packageGrant: Grant | undefined,
  override: Grant | undefined,
): SubscriptionGrant | undefined {
  if (override) return { subscriptionId, source: 'override', grant: override };
  if (packageGrant) return { subscriptionId, source: 'package', grant: packageGrant };
  return undefined;
}

/**
 * The subscription that governs a feature for the customer: the one created first (lowest id) among those that
 * give it enabled, as a customer-level usage event counts for the subscription created first
 * (docs/design/usage.md, "Which subscription an event counts for"). Undefined: the feature is not allowed.
 */
export function governingGrant(grants: readonly SubscriptionGrant[]): SubscriptionGrant | undefined {
  return [...grants].filter((g) => g.grant.enabled).sort((a, b) => a.subscriptionId - b.subscriptionId)[0];
}

/** What is left of a limit after `used`: never below zero; null when unlimited. */
export function remainingOf(limit: string | null, used: string): string | null {
  if (limit === null) return null;
  const left = new Big(limit).minus(used);
  return canonicalDecimal(left.lt(0) ? new Big(0) : left);
}

/** Whether consuming `quantity` more keeps the used amount within the limit (reaching it exactly is allowed). */
export function fitsLimit(limit: string | null, used: string, quantity: string): boolean {
  return limit === null || new Big(used).plus(quantity).lte(limit);
}

export function addQuantities(a: string, b: string): string {
  return canonicalDecimal(new Big(a).plus(b));
}
