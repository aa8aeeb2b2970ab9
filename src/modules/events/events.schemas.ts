import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, PagingQuery, Text, WireDate } from '../../http/schemas.ts';

const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const EventOut = Type.Object(
  {
    id: Type.String({
      description: '`evt_` and a ULID: sorts by creation; the webhook-id of its deliveries',
    }),
    type: Type.String({ description: 'resource.action, e.g. invoice.paid (docs/webhooks.md lists them)' }),
    timestamp: Type.String({
      format: 'date-time',
      description: "When it happened, on the account's clock (a test account's test clock)",
    }),
    accountID: Type.Integer(),
    resource: Type.Object({
      type: Type.String({ description: 'customer, invoice, payment, …' }),
      id: Type.Union([Type.Integer(), Type.String()]),
      version: Type.Integer({
        description: 'Counts the events of this resource: drop an event older than one already processed',
      }),
    }),
    data: Type.Object({
      object: AnyObject('The resource as the API returns it after the change (before it, for a deletion)'),
      previous: Type.Optional(AnyObject('The changed fields with their values before the change')),
    }),
  },
  { $id: 'Event' },
);

const TypeFilter = (description: string) =>
  Type.Optional(Text(2000, { description: `${description}: comma-separated types, prefix.* or *` }));

export const EventListQuery = Type.Intersect([
  PagingQuery,
  Type.Object({
    type: TypeFilter('Event types'),
    resourceType: Type.Optional(Text(64, { description: 'Only events of this resource type' })),
    resourceID: Type.Optional(Text(64, { description: 'Only events of this resource (with resourceType)' })),
    startDate: Type.Optional(WireDate({ description: 'Inclusive lower bound on timestamp' })),
    endDate: Type.Optional(
      WireDate({ description: 'Inclusive upper bound on timestamp (a bare date: its whole day)' }),
    ),
    deliverySuccess: Type.Optional(
      Type.Boolean({
        description:
          'false: events with a webhook delivery that failed or is being retried; true: all delivered',
      }),
    ),
  }),
]);
export type EventListQuery = Static<typeof EventListQuery>;

export const EventIdParams = Type.Object({ eventID: Text(64, { minLength: 1 }) });

export const AuditEntryOut = Type.Object(
  {
    auditLogEntryID: Type.Integer(),
    Date: Type.String({ format: 'date-time', description: 'When the change was written (wall clock)' }),
    ActorType: Type.Union([Type.Literal('api_key'), Type.Literal('cli'), Type.Literal('widget')]),
    apiKeyID: Type.Union([Type.Integer(), Type.Null()], { description: 'The API key that asked (api_key)' }),
    ClientAddress: Type.Union([Type.String(), Type.Null()], {
      description: "The client's address (api_key), or user@host (cli)",
    }),
    RequestID: Type.Union([Type.String(), Type.Null()], { description: 'The X-Request-Id of the request' }),
    Operation: Type.String({ description: 'Method and route (POST /v1/customers), or the CLI command' }),
    eventID: Type.String(),
    EventType: Type.String(),
    ResourceType: Type.String(),
    ResourceID: Type.String(),
    Before: Type.Union([AnyObject('Changed fields before (the whole object for a deletion)'), Type.Null()]),
    After: Type.Union([AnyObject('Changed fields after (the whole object for a creation)'), Type.Null()]),
  },
  { $id: 'AuditLogEntry' },
);

export const AuditListQuery = Type.Intersect([
  PagingQuery,
  Type.Object({
    eventType: TypeFilter('Event types of the entries'),
    resourceType: Type.Optional(Text(64)),
    resourceID: Type.Optional(Text(64)),
    actorType: Type.Optional(
      Type.Union([Type.Literal('api_key'), Type.Literal('cli'), Type.Literal('widget')]),
    ),
    apiKeyID: Type.Optional(Id()),
    requestID: Type.Optional(Text(64)),
    startDate: Type.Optional(WireDate({ description: 'Inclusive lower bound on Date' })),
    endDate: Type.Optional(
      WireDate({ description: 'Inclusive upper bound on Date (a bare date: its whole day)' }),
    ),
  }),
]);
export type AuditListQuery = Static<typeof AuditListQuery>;
