import type { Static } from '@sinclair/typebox';
import type { WebhookDelivery } from './webhookDeliveryReads.service.ts';
import type { WebhookEndpoint } from './webhookEndpoint.ts';
import type { WebhookEndpointChanges, WebhookEndpointInput } from './webhookEndpoint.service.ts';
import type {
  CreateWebhookEndpointBody,
  DeliveryOut,
  EditWebhookEndpointBody,
  WebhookEndpointOut,
} from './webhookEndpoints.schemas.ts';

/** The endpoint as the API shows it: never a secret. */
export function toWebhookEndpointDto(endpoint: WebhookEndpoint): Static<typeof WebhookEndpointOut> {
  return {
    webhookEndpointID: endpoint.id,
    Url: endpoint.url,
    Description: endpoint.description,
    EnabledEvents: endpoint.enabledEvents,
    Status: endpoint.status,
    DisabledReason: endpoint.disabledReason,
    CreatedDate: endpoint.createdAt,
    UpdatedDate: endpoint.updatedAt,
  };
}

export function webhookEndpointInputFromWire(body: CreateWebhookEndpointBody): WebhookEndpointInput {
  return {
    url: body.Url,
    description: body.Description,
    enabledEvents: body.EnabledEvents,
    isActive: body.isActive,
  };
}

export function webhookEndpointChangesFromWire(body: EditWebhookEndpointBody): WebhookEndpointChanges {
  return {
    url: body.Url,
    description: body.Description,
    enabledEvents: body.EnabledEvents,
    status: body.Status,
  };
}

export function toWebhookDeliveryDto(delivery: WebhookDelivery): Static<typeof DeliveryOut> {
  return {
    webhookDeliveryID: delivery.id,
    webhookEndpointID: delivery.endpoint_id,
    eventID: delivery.event_id,
    EventType: delivery.event_type,
    Status: delivery.status,
    Attempts: delivery.attemptsMade.length,
    NextAttemptDate: delivery.status === 'pending' ? delivery.next_attempt_at : null,
    LastStatusCode: delivery.last_status_code,
    LastError: delivery.last_error,
    CreatedDate: delivery.created_at,
    DeliveredDate: delivery.delivered_at,
    AttemptsMade: delivery.attemptsMade.map((attempt) => ({
      AttemptDate: attempt.attempted_at,
      StatusCode: attempt.status_code,
      DurationMs: attempt.duration_ms,
      ResponseExcerpt: attempt.response_excerpt,
      Error: attempt.error,
    })),
  };
}
