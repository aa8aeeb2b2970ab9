import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/types.ts';
import { pageOf } from '../../http/schemas.ts';
import { getEvent, listAuditLog, listEvents } from './eventReads.service.ts';
import { AuditEntryOut, AuditListQuery, EventIdParams, EventListQuery, EventOut } from './events.schemas.ts';
import { toAuditEntryDto } from './events.serializer.ts';

/** Stored event texts are sent as they are: the bytes webhooks deliver, without parsing them again. */
function sendJson(reply: FastifyReply, text: string): FastifyReply {
  return reply
    .type('application/json; charset=utf-8')
    .serializer((payload) => payload as string)
    .send(text);
}

/** Reading events and the audit log. Neither can be changed through the API. */
export function registerEventRoutes(app: App): void {
  app.get(
    '/events',
    {
      schema: {
        summary: 'List events',
        operationId: 'listEvents',
        description:
          'What happened in the account, newest first: every change the API or the service made, kept 30 days. ' +
          'Each event is the body its webhooks deliver (docs/webhooks.md).',
        tags: ['Events'],
        querystring: EventListQuery,
        response: { 200: Type.Array(EventOut) },
      },
    },
    async (request, reply) => {
      const { type, resourceType, resourceID, startDate, endDate, deliverySuccess } = request.query;
      const payloads = await listEvents(request.ctx, pageOf(request.query), {
        ...(type !== undefined ? { type } : {}),
        ...(resourceType !== undefined ? { resourceType } : {}),
        ...(resourceID !== undefined ? { resourceID } : {}),
        ...(startDate !== undefined ? { startDate } : {}),
        ...(endDate !== undefined ? { endDate } : {}),
        ...(deliverySuccess !== undefined ? { deliverySuccess } : {}),
      });
      return sendJson(reply, `[${payloads.join(',')}]`);
    },
  );

  app.get(
    '/events/:eventID',
    {
      schema: {
        summary: 'Get an event',
        operationId: 'getEvent',
        description: 'One event, exactly as its webhooks deliver it.',
        tags: ['Events'],
        params: EventIdParams,
        response: { 200: EventOut },
      },
    },
    async (request, reply) => sendJson(reply, await getEvent(request.ctx, request.params.eventID)),
  );

  app.get(
    '/auditlog',
    {
      schema: {
        summary: 'List the audit log',
        operationId: 'listAuditLog',
        description:
          'Who changed what through the API or the CLI, newest first: the API key (or CLI user and host), the ' +
          "client's address, the request id, the operation, the resource and its changed fields before and after. " +
          'Entries are never changed or deleted through the API.',
        tags: ['Events'],
        querystring: AuditListQuery,
        response: { 200: Type.Array(AuditEntryOut) },
      },
    },
    async (request) => {
      const q = request.query;
      const entries = await listAuditLog(request.ctx, pageOf(q), {
        ...(q.eventType !== undefined ? { eventType: q.eventType } : {}),
        ...(q.resourceType !== undefined ? { resourceType: q.resourceType } : {}),
        ...(q.resourceID !== undefined ? { resourceID: q.resourceID } : {}),
        ...(q.actorType !== undefined ? { actorType: q.actorType } : {}),
        ...(q.apiKeyID !== undefined ? { apiKeyID: q.apiKeyID } : {}),
        ...(q.requestID !== undefined ? { requestID: q.requestID } : {}),
        ...(q.startDate !== undefined ? { startDate: q.startDate } : {}),
        ...(q.endDate !== undefined ? { endDate: q.endDate } : {}),
      });
      return entries.map(toAuditEntryDto);
    },
  );
}
