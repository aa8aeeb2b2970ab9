import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { Id } from '../../http/schemas.ts';
import {
  ProgressiveBillingBody,
  ProgressiveBillingOut,
  toProgressiveBillingDto,
} from './progressiveBilling.schemas.ts';
import { getProgressiveBilling, setProgressiveThreshold } from './progressiveBilling.service.ts';

const tags = ['Subscriptions'];
const SubscriptionParams = Type.Object({ subscriptionID: Id() });

/** A subscription's progressive billing (docs/usage.md, "Progressive billing"). */
export function registerProgressiveBillingRoutes(app: App): void {
  app.get(
    '/subscriptions/:subscriptionID/progressivebilling',
    {
      schema: {
        summary: "Read a subscription's progressive billing",
        operationId: 'getSubscriptionProgressiveBilling',
        description:
          'Beyond the spec: its threshold, and what progressive invoices billed of the usage period holding today.',
        tags,
        params: SubscriptionParams,
        response: { 200: ProgressiveBillingOut },
      },
    },
    async (request) =>
      toProgressiveBillingDto(await getProgressiveBilling(request.ctx, request.params.subscriptionID)),
  );

  app.put(
    '/subscriptions/:subscriptionID/progressivebilling',
    {
      schema: {
        summary: "Set a subscription's progressive billing threshold",
        operationId: 'setSubscriptionProgressiveBilling',
        description:
          'Beyond the spec: once the metered usage of the current period not invoiced yet reaches the threshold, it ' +
          'is invoiced at once (checked with the usage alerts, and on each day a test clock passes); the period’s ' +
          'final invoice deducts what those invoices billed. null turns it off. 422 names ProgressiveBillingThreshold.',
        tags,
        params: SubscriptionParams,
        body: ProgressiveBillingBody,
        response: { 200: ProgressiveBillingOut },
      },
    },
    async (request) =>
      toProgressiveBillingDto(
        await setProgressiveThreshold(
          request.ctx,
          request.params.subscriptionID,
          request.body.ProgressiveBillingThreshold,
        ),
      ),
  );
}
