/**
 * Entitlements (docs/usage.md, "Entitlements"): features, their values on packages and subscriptions, what a
 * customer is entitled to, and the atomic check-and-record. Routes: features.routes.ts, entitlements.routes.ts.
 */
export type { Feature, FeatureType, FeatureValue } from './feature.ts';
/** What events show of features and their values (src/readModels/). */
export { featuresByIds } from './feature.service.ts';
export { featureValuesByIds } from './featureValue.service.ts';
export { toFeatureDto, toFeatureValueDto } from './features.serializer.ts';

/** Every event type this module emits (docs/webhooks.md lists them; a test triggers each). */
export const ENTITLEMENT_EVENT_TYPES = [
  'feature.created',
  'feature.updated',
  'feature.deleted',
  'feature_value.set',
  'feature_value.removed',
] as const;
export { copyFeatures } from './featureCopy.repository.ts';
