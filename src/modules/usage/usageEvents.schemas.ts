import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, PagingQuery, WireDate } from '../../http/schemas.ts';

/** The most events one batch may carry (docs/usage.md, "Sending events"). */
export const BATCH_MAX = 100;

const TransactionId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Unique per account: an event sent again with it is a duplicate, counted once',
  examples: ['req_7Hq2'],
});

export const UsageEventIn = Type.Object(
  {
    transaction_id: TransactionId,
    customerID: Type.Optional(Id({ description: "The event's customer; or CustomerReference" })),
    CustomerReference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: "The customer's Reference; or customerID",
        examples: ['CUST-0042'],
      }),
    ),
    subscriptionID: Type.Optional(
      Type.Union([Id(), Type.Null()], {
        description:
          "The customer's subscription it counts for; left out, it counts for the subscription whose period holds " +
          'its time and whose package bills its metric (the first created, when several do)',
      }),
    ),
    code: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "A billable metric's Code",
      examples: ['api_calls'],
    }),
    // A string here, read per event: a batch answers an unreadable one as that event's refusal.
    timestamp: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          "When it happened, an ISO 8601 date-time (default: now; without an offset, in the account's time zone); " +
          "refused when older than the account's UsageGraceHours or more than 24 hours ahead",
      }),
    ),
    properties: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "What the metric reads: its Property's value, its filters' and its GroupBy's properties",
        examples: [{ tokens: 1200, model: 'large', region: 'eu' }],
      }),
    ),
  },
  { additionalProperties: false },
);
export type UsageEventIn = Static<typeof UsageEventIn>;

export const UsageEventBatchIn = Type.Object(
  { events: Type.Array(UsageEventIn, { minItems: 1, maxItems: BATCH_MAX }) },
  { additionalProperties: false },
);
export type UsageEventBatchIn = Static<typeof UsageEventBatchIn>;

export const UsageEventOut = Type.Object(
  {
    usageEventID: Type.Integer({ examples: [50231] }),
    transaction_id: Type.String({ examples: ['req_7Hq2'] }),
    customerID: Type.Integer(),
    subscriptionID: Type.Union([Type.Integer(), Type.Null()]),
    code: Type.String({ examples: ['api_calls'] }),
    timestamp: Type.String({ format: 'date-time' }),
    properties: Type.Record(Type.String(), Type.Unknown()),
    isCounted: Type.Boolean({
      description: "False when the metric's filters leave it out: kept, counted nowhere",
      examples: [true],
    }),
    ReceivedAt: Type.String({ format: 'date-time', examples: ['2026-11-20T12:00:03.000Z'] }),
  },
  { $id: 'UsageEvent' },
);
export type UsageEventOut = Static<typeof UsageEventOut>;

export const UsageEventOutcomeOut = Type.Object({
  Status: Type.Union([Type.Literal('accepted'), Type.Literal('duplicate'), Type.Literal('refused')]),
  transaction_id: Type.String({ examples: ['req_7Hq2'] }),
  usageEventID: Type.Optional(
    Type.Integer({
      description: 'The event recorded (for a duplicate: the one first sent with its transaction_id)',
      examples: [50231],
    }),
  ),
  Field: Type.Optional(Type.String({ description: 'Refused: the field at fault', examples: ['timestamp'] })),
  Detail: Type.Optional(
    Type.String({
      description: 'Refused: why',
      examples: ["is older than the account's grace window of 72 hours"],
    }),
  ),
});
export type UsageEventOutcomeOut = Static<typeof UsageEventOutcomeOut>;

export const UsageEventBatchOut = Type.Object({ events: Type.Array(UsageEventOutcomeOut) });

export const CustomerUsageEventsParams = Type.Object({ customerID: Id() });

export const CustomerUsageEventsQuery = Type.Composite([
  Type.Object({
    from: Type.Optional(WireDate({ description: 'Events at or after this instant (default: the first)' })),
    to: Type.Optional(WireDate({ description: 'Events before this instant (default: no bound)' })),
    code: Type.Optional(Type.String({ maxLength: 255, description: "One metric's events only" })),
  }),
  PagingQuery,
]);
export type CustomerUsageEventsQuery = Static<typeof CustomerUsageEventsQuery>;
