/** Usage events as the usage module's use cases and callers see them (docs/design/usage.md). */

/** One event to record: already resolved to the account's customer (and subscription, when it names one). */
export interface UsageEventInput {
  /** Unique per account: a second event with it is a duplicate, counted once (decided at insert). */
  transactionId: string;
  customerId: number;
  /** The subscription it counts for; null: whichever of the customer's claims its time (claims.ts). */
  subscriptionId: number | null;
  /** The billable metric's code. */
  code: string;
  /** When it happened: an ISO 8601 date-time (with an offset, or wall time in the account's zone). */
  timestamp: string;
  properties: Readonly<Record<string, unknown>>;
}

/** What became of one input, in the inputs' order. */
export type UsageEventOutcome =
  | { status: 'accepted'; eventId: number }
  | { status: 'duplicate'; eventId: number }
  | { status: 'refused'; field: string; detail: string };

/** A stored event, as listed for a customer. */
export interface UsageEvent {
  id: number;
  transactionId: string;
  customerId: number;
  subscriptionId: number | null;
  metricId: number;
  /** UTC instant, ISO 8601 with milliseconds. */
  occurredAt: string;
  properties: Record<string, unknown>;
  /** False when the metric's filters exclude it: kept, counted nowhere. */
  counted: boolean;
  receivedAt: string;
}

/** What the insert path needs of the account. */
export interface UsageAccount {
  id: number;
  timeZone: string;
  /** Events older than this many hours before now are refused (docs/usage.md, "Grace and late events"). */
  usageGraceHours: number;
}
