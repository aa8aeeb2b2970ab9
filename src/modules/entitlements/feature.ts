/**
 * Features and their values as the domain sees them (docs/usage.md, "Entitlements"). A feature is given by
 * packages (all their versions alike) and overridden on one subscription.
 */

export type FeatureType = 'boolean' | 'limit' | 'config';

export const FEATURE_TYPES: readonly FeatureType[] = ['boolean', 'limit', 'config'];

export interface Feature {
  id: number;
  code: string;
  name: string;
  descrip: string | null;
  type: FeatureType;
  /** The metric whose usage a limit feature limits; null for the other types. */
  metricId: number | null;
  createdAt: string;
  updatedAt: string;
}

/** What a package or an override gives of a feature. */
export interface Grant {
  /** False withholds the feature (an override turning a package's feature off). */
  enabled: boolean;
  /** A limit feature's quantity per billing period, canonical decimal; null: unlimited (or not a limit). */
  limit: string | null;
  /** A config feature's value; null for the other types. */
  value: string | null;
}

/** A value row: a grant given by a package or set on a subscription. */
export interface FeatureValue extends Grant {
  id: number;
  featureId: number;
  owner: FeatureValueOwner;
  updatedAt: string;
}

export type FeatureValueOwner = { type: 'package'; id: number } | { type: 'subscription'; id: number };
