import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import { getInvoice, InvoiceOut, toInvoiceDto } from '../invoicing/index.ts';
import { withInvoiceFigures } from '../../readModels/invoices.view.ts';
import { createSubscriptionWithWarnings, previewSubscription } from './subscription.service.ts';
import { modifyComponents, recordUsage } from './subscriptionComponents.service.ts';
import { changeEndDate, changeStartDate } from './subscriptionDates.service.ts';
import {
  getSubscription,
  listCustomerSubscriptions,
  listSubscriptions,
} from './subscriptionReads.service.ts';
import {
  ChangeEndDateBody,
  ChangeStartDateBody,
  CreateSubscriptionBody,
  CustomerIdParams,
  ModifyComponentsBody,
  RecordUsageBody,
  SubscriptionIdParams,
  SubscriptionOut,
} from './subscriptions.schemas.ts';
import {
  componentChoicesFromWire,
  createSubscriptionInputFromWire,
  toSubscriptionDto,
  usageRecordsFromWire,
} from './subscriptions.serializer.ts';

const tags = ['Subscriptions'];

const CreatePreviewQuery = Type.Object({
  preview: Type.Optional(
    Type.Boolean({
      description:
        'true: answer 200 with the subscription and the invoices creating it would make, and create nothing',
    }),
  ),
});
/** docs/spec-decisions.md, "Backdated subscriptions": present only when there is something to warn of. */
const Warnings = Type.Optional(
  Type.Array(
    Type.Object({
      code: Type.String({
        description: 'catch_up: the start is more than one period ago',
        examples: ['catch_up'],
      }),
      message: Type.String({
        examples: ['starts 2025-11-01, more than one period ago: 13 periods will be billed now'],
      }),
    }),
    {
      description: 'Beyond the spec: what the request did that may not be meant (a catch-up of past periods)',
    },
  ),
);
const CreatedOut = Type.Composite([SubscriptionOut, Type.Object({ Warnings })]);
const CreatePreviewOut = Type.Object({
  Subscription: SubscriptionOut,
  Invoices: Type.Array(InvoiceOut),
  Warnings,
});
const warningsOf = (warnings: readonly { code: string; message: string }[]) =>
  warnings.length > 0 ? { Warnings: [...warnings] } : {};

/** The component endpoints take `{componentUsage: [...]}` or the bare list: a bare array is wrapped first. */
function bareListAsComponentUsage(request: FastifyRequest, _reply: unknown, done: () => void): void {
  if (Array.isArray(request.body)) request.body = { componentUsage: request.body };
  done();
}

export function registerSubscriptionsRoutes(app: App): void {
  app.get(
    '/customers/:customerID/subscriptions',
    {
      schema: {
        summary: "List a customer's subscriptions",
        operationId: 'listCustomerSubscriptions',
        description:
          "The customer's subscriptions in creation order, with their next invoice and renewal dates.",
        tags,
        params: CustomerIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(SubscriptionOut) },
      },
    },
    async (request) =>
      (await listCustomerSubscriptions(request.ctx, request.params.customerID, pageOf(request.query))).map(
        (s) => toSubscriptionDto(s, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/subscriptions',
    {
      schema: {
        summary: 'List subscriptions',
        operationId: 'listSubscriptions',
        description:
          "The account's subscriptions in creation order, with their next invoice and renewal dates.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(SubscriptionOut) },
      },
    },
    async (request) =>
      (await listSubscriptions(request.ctx, pageOf(request.query))).map((s) =>
        toSubscriptionDto(s, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/subscriptions/:subscriptionID',
    {
      schema: {
        summary: 'Get a subscription',
        operationId: 'getSubscription',
        description: 'One subscription with its package, term, components, status and next invoice date.',
        tags,
        params: SubscriptionIdParams,
        response: { 200: SubscriptionOut },
      },
    },
    async (request) =>
      toSubscriptionDto(
        await getSubscription(request.ctx, request.params.subscriptionID),
        request.ctx.account.timeZone,
      ),
  );

  app.post(
    '/subscriptions',
    {
      schema: {
        summary: 'Create a subscription',
        operationId: 'createSubscription',
        tags,
        description:
          "Subscribes a customer to a package version on one of its rate terms in the customer's currency; " +
          'billed at once when its first invoice is due.',
        body: CreateSubscriptionBody,
        querystring: CreatePreviewQuery,
        response: { 201: CreatedOut, 200: CreatePreviewOut },
      },
    },
    async (request, reply) => {
      const input = createSubscriptionInputFromWire(request.body);
      const timeZone = request.ctx.account.timeZone;
      if (request.query.preview) {
        const previewed = await previewSubscription(request.ctx, input, async (ctx, created) => ({
          Subscription: toSubscriptionDto(created.subscription, timeZone),
          Invoices: (
            await withInvoiceFigures(
              ctx,
              await Promise.all(created.invoiceIds.map((id) => getInvoice(ctx, id))),
            )
          ).map((invoice) => toInvoiceDto(invoice, timeZone)),
          ...warningsOf(created.warnings),
        }));
        return reply.code(200).send(previewed);
      }
      const created = await createSubscriptionWithWarnings(request.ctx, input);
      return reply
        .code(201)
        .send({ ...toSubscriptionDto(created.subscription, timeZone), ...warningsOf(created.warnings) });
    },
  );

  app.put(
    '/subscriptions/:subscriptionID/components/modify',
    {
      schema: {
        summary: "Set a subscription's components",
        operationId: 'modifySubscriptionComponents',
        tags,
        description:
          'Sets the components (the list is the whole set; `{componentUsage: [...]}` or the bare list). ' +
          "NumUnits and Memo, when given, set the current usage period's units.",
        params: SubscriptionIdParams,
        body: ModifyComponentsBody,
        response: NoContent,
      },
      preValidation: bareListAsComponentUsage,
    },
    async (request, reply) => {
      await modifyComponents(
        request.ctx,
        request.params.subscriptionID,
        componentChoicesFromWire(request.body),
      );
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/subscriptions/:subscriptionID/components/recordusage',
    {
      schema: {
        summary: 'Record usage',
        operationId: 'recordSubscriptionUsage',
        tags,
        description:
          'Sets (isSetUnits true) or adds to (false) the units of the usage period holding today ' +
          '(`{componentUsage: [...]}` or the bare list).',
        params: SubscriptionIdParams,
        body: RecordUsageBody,
        response: NoContent,
      },
      preValidation: bareListAsComponentUsage,
    },
    async (request, reply) => {
      await recordUsage(request.ctx, request.params.subscriptionID, usageRecordsFromWire(request.body));
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/subscriptions/:subscriptionID/changestartdate',
    {
      schema: {
        summary: 'Change the start date',
        operationId: 'changeSubscriptionStartDate',
        tags,
        description: 'Moves the StartDate of a subscription not billed yet.',
        params: SubscriptionIdParams,
        body: ChangeStartDateBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await changeStartDate(request.ctx, request.params.subscriptionID, request.body.StartDate);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/subscriptions/:subscriptionID/changeenddate',
    {
      schema: {
        summary: 'Change the end date',
        operationId: 'changeSubscriptionEndDate',
        tags,
        description: 'Sets the EndDate (not before today), or clears it with null.',
        params: SubscriptionIdParams,
        body: ChangeEndDateBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await changeEndDate(request.ctx, request.params.subscriptionID, request.body.EndDate);
      return reply.code(204).send(null);
    },
  );
}
