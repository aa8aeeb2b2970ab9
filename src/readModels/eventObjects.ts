import type { EventObjectRenderer } from '../modules/events/index.ts';
import { billingEventObjects } from './eventObjects.billing.ts';
import { customersEventObjects } from './eventObjects.customers.ts';
import { mandatesEventObjects } from './eventObjects.mandates.ts';
import { webhooksEventObjects } from './eventObjects.webhooks.ts';
import { retentionEventObjects } from './eventObjects.retention.ts';

/**
 * How events show each resource: exactly as the API returns it on its single GET (with the API's masking), read
 * in the transaction of the change. Handed to the events module by the composition root (src/modulePorts.ts).
 */
export const eventObjectRenderers: Record<string, EventObjectRenderer> = {
  ...customersEventObjects,
  ...billingEventObjects,
  ...webhooksEventObjects,
  ...mandatesEventObjects,
  ...retentionEventObjects,
};
