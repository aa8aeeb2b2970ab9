export type { EventObjectRenderer, EventPorts, ResourceRef } from './ports.ts';
export type { EventBody, EventToEmit, Snapshot } from './event.service.ts';
export {
  emitEvent,
  emitEvents,
  EVENT_BATCH_SIZE,
  emitInBatches,
  notYetEmitted,
  snapshotResource,
  snapshotResources,
  withAfter,
} from './event.service.ts';
export type { WebhookAccounts, WebhookDeliveryDeps } from './webhookDelivery.service.ts';
export type { WebhookWorker, WebhookWorkerOptions } from './webhook.worker.ts';
export { startWebhookWorker } from './webhook.worker.ts';
export type { WebhookEndpoint } from './webhookEndpoint.ts';
export {
  copyWebhookEndpoints,
  disableEndpoint,
  endpointSigningSecrets,
  webhookEndpointsByIds,
} from './webhookEndpoint.service.ts';
export { toWebhookEndpointDto } from './webhookEndpoints.serializer.ts';
export { WEBHOOK_EVENT_TYPES } from './webhookEventTypes.ts';
export { knownEventTypes } from './eventTypeCatalogue.ts';
export type { WebhookUrlPolicy } from './webhookUrlPolicy.ts';
export {
  addressAllowed,
  parseWebhookUrlPolicy,
  webhookRules,
  webhookUrlProblem,
} from './webhookUrlPolicy.ts';
export {
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
  nextRetryDelayMs,
  parseRetryAfter,
} from './webhookDeliverySchedule.ts';
export { EVENT_RETENTION_DAYS, purgeExpiredEvents } from './eventReads.service.ts';
export { changedFields } from './eventTypes.ts';
