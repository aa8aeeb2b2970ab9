/**
 * The event types the webhook endpoints emit, on the `webhook_endpoint` resource (docs/event-catalogue.md).
 * `webhook_endpoint.disabled` comes with its `updated`, by hand or when the service gives up on the endpoint.
 */
export const WEBHOOK_EVENT_TYPES = [
  'webhook.test',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.disabled',
  'webhook_endpoint.secret_rotated',
] as const;
