import type { EventObjectRenderer } from '../modules/events/index.ts';
import { toWebhookEndpointDto, webhookEndpointsByIds } from '../modules/events/index.ts';
import { numericRenderer } from './eventObjectRenderer.ts';

/** Event renderers of the webhooks resources (see eventObjects.ts): an endpoint as its GET shows it, no secret. */
export const webhooksEventObjects: Record<string, EventObjectRenderer> = {
  webhook_endpoint: numericRenderer(webhookEndpointsByIds, (_ctx, found) => found.map(toWebhookEndpointDto)),
};
