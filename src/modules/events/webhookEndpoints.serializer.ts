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
    webhookEndpointID: delivery.endpointId,
    eventID: delivery.eventId,
    EventType: delivery.eventType,
    Status: delivery.status,
    Attempts: delivery.attemptsMade.length,
    NextAttemptDate: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
    LastStatusCode: delivery.lastStatusCode,
    LastError: delivery.lastError,
    CreatedDate: delivery.createdAt,
    DeliveredDate: delivery.deliveredAt,
    AttemptsMade: delivery.attemptsMade.map((attempt) => ({
      AttemptDate: attempt.attemptedAt,
      StatusCode: attempt.statusCode,
      DurationMs: attempt.durationMs,
      ResponseExcerpt: attempt.responseExcerpt,
      Error: attempt.error,
    })),
  };
}
