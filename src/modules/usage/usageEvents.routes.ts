import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../../errors.ts';
import { sendInUsageTurn } from '../../flows/recordUsage.ts';
import { pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { exportUsageEvents, listUsageEvents, usageEventsOfTransactions } from './usageEventReads.service.ts';
import type { SentUsageEvent } from './usageEventSending.service.ts';
import {
  BATCH_MAX,
  CustomerUsageEventsParams,
  CustomerUsageEventsQuery,
  UsageEventBatchIn,
  UsageEventBatchOut,
  UsageEventIn,
  UsageEventOut,
} from './usageEvents.schemas.ts';
import {
  CSV_HEADER,
  sentUsageEventFromWire,
  toCsvLine,
  toOutcomeDto,
  toUsageEventCsvLine,
  toUsageEventDto,
} from './usageEvents.serializer.ts';

const tags = ['Usage events'];

/**
 * An account's usage calls take turns in the process, usageLanes transactions at a time
 * (src/http/customerQueue.ts), and a turn records the waiting calls' events together (src/flows/recordUsage.ts). NOTE:
 * without turns, ten connections of batches from one account each queue a transaction for the database (on SQLite,
 * for its one writer connection), and every other account's request waits behind all of them (docs/usage.md,
 * "Sending events"). The line is bounded: past it a call is answered 503 with Retry-After, nothing recorded.
 */
function sendInTurn(request: FastifyRequest, sent: readonly SentUsageEvent[]) {
  // Within the account's rate first (docs/usage.md, "Limits"): past it, nothing is read or stored.
  const bytes = Number(request.headers['content-length']) || Buffer.byteLength(JSON.stringify(request.body));
  request.usageBudget.take(
    String(request.ctx.account.id),
    { events: sent.length, bytes },
    'usage_rate_exceeded',
    'This account sent usage events faster than its rate (USAGE_EVENTS_PER_SECOND, USAGE_BYTES_PER_SECOND)',
  );
  return sendInUsageTurn(request.customerQueue, request.ctx, sent);
}

export function registerUsageEventRoutes(app: App): void {
  app.post(
    '/usage-events',
    {
      schema: {
        summary: 'Send a usage event',
        operationId: 'createUsageEvent',
        description:
          'Records one usage event of a customer for a billable metric (docs/usage.md, "Sending events"): 201 with ' +
          'the event; 200 with the event first sent when its transaction_id was sent before (counted once); 422 ' +
          'naming the field when refused; 409 `usage_storage_full` once the account stores as much as its cap ' +
          '(docs/usage.md, "Limits").',
        tags,
        body: UsageEventIn,
        response: { 200: UsageEventOut, 201: UsageEventOut },
      },
    },
    async (request, reply) => {
      const [outcome] = await sendInTurn(request, [sentUsageEventFromWire(request.body)]);
      if (outcome!.status === 'refused') throw ValidationError.field(outcome!.field, outcome!.detail);
      const stored = (await usageEventsOfTransactions(request.ctx, [request.body.transaction_id])).get(
        request.body.transaction_id,
      )!;
      return reply
        .code(outcome!.status === 'accepted' ? 201 : 200)
        .send(toUsageEventDto(stored.event, stored.code));
    },
  );

  app.post(
    '/usage-events/batch',
    {
      schema: {
        summary: 'Send usage events in a batch',
        operationId: 'createUsageEventBatch',
        description:
          `Records up to ${BATCH_MAX} usage events in one transaction and answers each, in order: accepted, ` +
          'duplicate (its transaction_id was sent before: counted once), or refused with the field and why. A ' +
          `batch of more than ${BATCH_MAX}, or one whose events are not shaped as POST /v1/usage-events takes them, ` +
          'is refused whole (422); so is every batch once the account stores as much as its cap (409 ' +
          '`usage_storage_full`, docs/usage.md, "Limits").',
        tags,
        body: UsageEventBatchIn,
        response: { 200: UsageEventBatchOut },
      },
    },
    async (request) => {
      const sent = request.body.events;
      const outcomes = await sendInTurn(request, sent.map(sentUsageEventFromWire));
      return { events: outcomes.map((outcome, i) => toOutcomeDto(outcome, sent[i]!.transaction_id)) };
    },
  );

  app.get(
    '/customers/:customerID/usage-events',
    {
      schema: {
        summary: "List a customer's usage events",
        operationId: 'listCustomerUsageEvents',
        description:
          "The customer's usage events in time order (then as recorded), in [from, to), of one metric when code is " +
          'given: what explains a bill line by line. With Accept: text/csv, every event of the range as CSV ' +
          '(page and page_size aside), read a chunk at a time.',
        tags,
        params: CustomerUsageEventsParams,
        querystring: CustomerUsageEventsQuery,
        produces: ['application/json', 'text/csv'],
        response: {
          200: {
            description: 'The events, as JSON or as CSV',
            content: {
              'application/json': { schema: Type.Array(UsageEventOut) },
              'text/csv': { schema: Type.String() },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { ctx } = request;
      const { customerID } = request.params;
      if (wantsCsv(request.headers.accept)) {
        const chunks = await exportUsageEvents(ctx, customerID, request.query);
        const lines = (async function* csv() {
          yield toCsvLine(CSV_HEADER);
          for await (const chunk of chunks) {
            yield chunk.map(({ event, code }) => toUsageEventCsvLine(event, code)).join('');
          }
        })();
        return (
          reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="usage-events-${customerID}.csv"`)
            // NOTE: Fastify pipes a stream as it is; its typing knows only the schema's string for text/csv.
            .send(Readable.from(lines) as unknown as string)
        );
      }
      const listed = await listUsageEvents(ctx, customerID, request.query, pageOf(request.query));
      return listed.map(({ event, code }) => toUsageEventDto(event, code));
    },
  );
}

/** Whether the client asks for CSV before JSON. */
function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const csv = types.indexOf('text/csv');
  const json = types.indexOf('application/json');
  return csv !== -1 && (json === -1 || csv < json);
}
