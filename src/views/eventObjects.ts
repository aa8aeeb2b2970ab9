import { customersByIds, toCustomerDto } from '../modules/customers/index.ts';
import type { EventObjectRenderer } from '../modules/events/index.ts';
import { withCustomerFigures } from './customers.view.ts';
import { numericRenderer } from './eventObjectRenderer.ts';
import { billingEventObjects } from './eventObjects.billing.ts';
import { customersEventObjects } from './eventObjects.customers.ts';
import { webhooksEventObjects } from './eventObjects.webhooks.ts';

/**
 * How events show each resource: exactly as the API returns it on its single GET (with the API's masking), read
 * in the transaction of the change. Registered by the composition root (connectModules.ts).
 */
export const eventObjectRenderers: Record<string, EventObjectRenderer> = {
  customer: numericRenderer(customersByIds, async (ctx, customers) =>
    (await withCustomerFigures(ctx, customers)).map(toCustomerDto),
  ),
  ...customersEventObjects,
  ...billingEventObjects,
  ...webhooksEventObjects,
};
