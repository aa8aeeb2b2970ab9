/**
 * Cancel with a way to stay (docs/portal.md, "Cancel with a way to stay"): the account's cancel reasons and their
 * offers, what a cancel in the portal shows, takes or declines, and the retention report. Routes:
 * retention.routes.ts.
 */
export type { CancelReason, RetentionOffer, RetentionRules } from './retention.ts';
export { getRetentionRules } from './retentionRules.service.ts';
export type { CancelRequest, OfferToShow } from './retentionOffer.service.ts';
export {
  RETENTION_EVENT_TYPES,
  cancelReasons,
  cancelWithReason,
  offerFor,
  recordOfferShown,
  takeRetentionOffer,
} from './retentionOffer.service.ts';
export { recordsByIds as retentionEventsByIds } from './retentionEvents.service.ts';
export { toRetentionEventDto } from './retention.serializer.ts';
export { copyRetentionRules } from './retentionCopy.repository.ts';
