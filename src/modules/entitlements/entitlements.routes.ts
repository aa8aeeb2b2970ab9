import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { idempotentCreate } from '../../http/idempotency.ts';
import { consumeEntitlement } from './consumption.service.ts';
import { checkEntitlement, listEntitlements } from './entitlement.service.ts';
import {
  ConsumeBody,
  ConsumptionOut,
  CustomerFeatureParams,
  CustomerParams,
  EntitlementCheckOut,
  EntitlementOut,
} from './features.schemas.ts';
import { toConsumptionDto, toEntitlementCheckDto, toEntitlementDto } from './features.serializer.ts';

const tags = ['Entitlements'];

/** What a customer's subscriptions entitle it to, and the atomic check-and-record (docs/usage.md, "Entitlements"). */
export function registerEntitlementRoutes(app: App): void {
  app.get(
    '/customers/:customerID/entitlements',
    {
      schema: {
        summary: "List a customer's entitlements",
        operationId: 'listEntitlements',
        description: "Every feature the customer's live subscriptions give, with each subscription's value.",
        tags,
        params: CustomerParams,
        response: { 200: Type.Array(EntitlementOut) },
      },
    },
    async (request) => (await listEntitlements(request.ctx, request.params.customerID)).map(toEntitlementDto),
  );

  app.get(
    '/customers/:customerID/entitlements/:featureCode',
    {
      schema: {
        summary: 'Check one feature',
        operationId: 'checkEntitlement',
        description:
          'Whether the feature is allowed; for a limit, the limit, what the billing period used and what remains.',
        tags,
        params: CustomerFeatureParams,
        response: { 200: EntitlementCheckOut },
      },
    },
    async (request) =>
      toEntitlementCheckDto(
        await checkEntitlement(request.ctx, request.params.customerID, request.params.featureCode),
      ),
  );

  app.post(
    '/customers/:customerID/entitlements/:featureCode/consume',
    {
      schema: {
        summary: 'Check a limit and record usage',
        operationId: 'consumeEntitlement',
        description:
          'Records a usage event of the limit’s metric only if the quantity fits what remains of the limit, in one ' +
          'transaction under the customer’s lock (409 naming Quantity otherwise). A retried transaction_id answers its first result.',
        tags,
        params: CustomerFeatureParams,
        body: ConsumeBody,
        response: { 201: ConsumptionOut },
      },
    },
    async (request, reply) => {
      const input = {
        customerId: request.params.customerID,
        featureCode: request.params.featureCode,
        quantity: request.body.Quantity,
        transactionId: request.body.transaction_id,
        properties: request.body.properties ?? {},
      };
      return idempotentCreate(request, reply, (ctx) => consumeEntitlement(ctx, input), toConsumptionDto, {
        customerId: input.customerId,
      });
    },
  );
}
