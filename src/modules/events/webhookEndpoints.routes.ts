import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, emptyBodyAsObject, pageOf } from '../../http/schemas.ts';
import { EventIdParams } from './events.schemas.ts';
import { listWebhookDeliveries } from './webhookDeliveryReads.service.ts';
import * as endpoints from './webhookEndpoint.service.ts';
import { recoverDeliveries, resendEvent } from './webhookEndpointReplay.service.ts';
import {
  CreateWebhookEndpointBody,
  CreatedWebhookEndpointOut,
  DeliveryListQuery,
  DeliveryOut,
  EditWebhookEndpointBody,
  PREVIOUS_SECRET_DEFAULT_SECONDS,
  RecoverBody,
  RecoverOut,
  ResendBody,
  ResendOut,
  RotateSecretBody,
  RotatedSecretOut,
  TestEventOut,
  WebhookEndpointIdParams,
  WebhookEndpointOut,
} from './webhookEndpoints.schemas.ts';
import {
  toWebhookDeliveryDto,
  toWebhookEndpointDto,
  webhookEndpointChangesFromWire,
  webhookEndpointInputFromWire,
} from './webhookEndpoints.serializer.ts';

const tags = ['Webhook endpoints'];

/** Webhook endpoints, their deliveries, resend and recover (docs/webhooks.md, "Webhook endpoints"). */
export function registerWebhookEndpointRoutes(app: App): void {
  app.post(
    '/webhookendpoints',
    {
      schema: {
        summary: 'Create a webhook endpoint',
        operationId: 'createWebhookEndpoint',
        description:
          'Subscribes a URL to event types of the catalogue (wildcards allowed; one that names no type is a 422 ' +
          'offering the nearest). The answer carries the signing Secret, shown ' +
          'this once: every delivery is signed with it (Standard Webhooks). An account has at most 16 endpoints ' +
          'unless the operator sets another cap: one more is 409 `webhook_endpoint_limit_reached`.',
        tags,
        body: CreateWebhookEndpointBody,
        response: { 201: CreatedWebhookEndpointOut },
      },
    },
    async (request, reply) => {
      const created = await endpoints.createWebhookEndpoint(
        request.ctx,
        webhookEndpointInputFromWire(request.body),
      );
      return reply.code(201).send({ ...toWebhookEndpointDto(created.endpoint), Secret: created.secret });
    },
  );

  app.get(
    '/webhookendpoints',
    {
      schema: {
        summary: 'List webhook endpoints',
        operationId: 'listWebhookEndpoints',
        description: "The account's webhook endpoints in creation order, without their secrets.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(WebhookEndpointOut) },
      },
    },
    async (request) =>
      (await endpoints.listWebhookEndpoints(request.ctx, pageOf(request.query))).map(toWebhookEndpointDto),
  );

  app.get(
    '/webhookendpoints/:webhookEndpointID',
    {
      schema: {
        summary: 'Get a webhook endpoint',
        operationId: 'getWebhookEndpoint',
        description: 'One webhook endpoint, without its secret.',
        tags,
        params: WebhookEndpointIdParams,
        response: { 200: WebhookEndpointOut },
      },
    },
    async (request) =>
      toWebhookEndpointDto(await endpoints.getWebhookEndpoint(request.ctx, request.params.webhookEndpointID)),
  );

  app.put(
    '/webhookendpoints/:webhookEndpointID',
    {
      schema: {
        summary: 'Edit a webhook endpoint',
        operationId: 'editWebhookEndpoint',
        description:
          'Changes the fields given: Url, Description, EnabledEvents, Status. Enabling a disabled endpoint ' +
          'clears DisabledReason and its failure clock; deliveries are made again from then on.',
        tags,
        params: WebhookEndpointIdParams,
        body: EditWebhookEndpointBody,
        response: NoContent,
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      await endpoints.editWebhookEndpoint(
        request.ctx,
        request.params.webhookEndpointID,
        webhookEndpointChangesFromWire(request.body),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/webhookendpoints/:webhookEndpointID',
    {
      schema: {
        summary: 'Delete a webhook endpoint',
        operationId: 'deleteWebhookEndpoint',
        description: 'Deletes the endpoint with its deliveries and their attempts.',
        tags,
        params: WebhookEndpointIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await endpoints.deleteWebhookEndpoint(request.ctx, request.params.webhookEndpointID);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhookendpoints/:webhookEndpointID/rotatesecret',
    {
      schema: {
        summary: "Rotate a webhook endpoint's secret",
        operationId: 'rotateWebhookEndpointSecret',
        description:
          'Makes a new signing Secret, shown this once. The old one keeps signing beside it (two signatures ' +
          `per delivery) for PreviousSecretExpiresIn seconds, ${PREVIOUS_SECRET_DEFAULT_SECONDS} unless given; ` +
          'a secret replaced by an earlier rotation stops at once.',
        tags,
        params: WebhookEndpointIdParams,
        body: RotateSecretBody,
        response: { 200: RotatedSecretOut },
      },
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const rotated = await endpoints.rotateWebhookSecret(
        request.ctx,
        request.params.webhookEndpointID,
        request.body.PreviousSecretExpiresIn ?? PREVIOUS_SECRET_DEFAULT_SECONDS,
      );
      return { Secret: rotated.secret, PreviousSecretExpiresAt: rotated.previousSecretExpiresAt };
    },
  );

  app.post(
    '/webhookendpoints/:webhookEndpointID/test',
    {
      schema: {
        summary: 'Send a test event',
        operationId: 'testWebhookEndpoint',
        description:
          'Emits a webhook.test event, delivered to this endpoint alone whatever it subscribes to. Its ' +
          'delivery shows in the deliveries list.',
        tags,
        params: WebhookEndpointIdParams,
        response: { 202: TestEventOut },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send({ eventID: await endpoints.sendTestEvent(request.ctx, request.params.webhookEndpointID) }),
  );

  app.get(
    '/webhookendpoints/:webhookEndpointID/deliveries',
    {
      schema: {
        summary: "List a webhook endpoint's deliveries",
        operationId: 'listWebhookDeliveries',
        description:
          'Deliveries of events to the endpoint, newest first, each with its attempts (status code, duration, ' +
          'the first kilobyte of the response, error). Filters: status, eventType (wildcards allowed), and ' +
          'startDate and endDate on when the delivery was queued.',
        tags,
        params: WebhookEndpointIdParams,
        querystring: DeliveryListQuery,
        response: { 200: Type.Array(DeliveryOut) },
      },
    },
    async (request) => {
      const { status, eventType, startDate, endDate } = request.query;
      const list = await listWebhookDeliveries(
        request.ctx,
        request.params.webhookEndpointID,
        pageOf(request.query),
        {
          status,
          eventType,
          startDate,
          endDate,
        },
      );
      return list.map(toWebhookDeliveryDto);
    },
  );

  app.post(
    '/webhookendpoints/:webhookEndpointID/recover',
    {
      schema: {
        summary: "Recover a webhook endpoint's failed deliveries",
        operationId: 'recoverWebhookDeliveries',
        description:
          'Sends again every failed delivery queued from Since until Until (default now), oldest first, at ' +
          'most 10 a second and 10 000 a call, each with a fresh retry schedule. One call a minute per endpoint ' +
          '(409 recover_in_progress). Deliveries of a disabled endpoint wait until it is enabled.',
        tags,
        params: WebhookEndpointIdParams,
        body: RecoverBody,
        response: { 202: RecoverOut },
      },
    },
    async (request, reply) => {
      const requeued = await recoverDeliveries(request.ctx, request.params.webhookEndpointID, {
        since: request.body.Since,
        until: request.body.Until,
      });
      return reply.code(202).send({ Requeued: requeued });
    },
  );

  app.post(
    '/events/:eventID/resend',
    {
      schema: {
        summary: 'Resend an event to a webhook endpoint',
        operationId: 'resendEvent',
        description:
          'Queues a new delivery of the event to the endpoint, due at once, with the same webhook-id (the ' +
          'event id) so the receiver can tell it from a new event.',
        tags,
        params: EventIdParams,
        body: ResendBody,
        response: { 202: ResendOut },
      },
    },
    async (request, reply) =>
      reply.code(202).send({
        webhookDeliveryID: await resendEvent(
          request.ctx,
          request.params.eventID,
          request.body.webhookEndpointID,
        ),
      }),
  );
}
