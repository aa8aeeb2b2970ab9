import type { Instant, Id } from '../../storage/columnTypes.ts';

// The tables the events module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/** The tables of events, the audit log and webhooks (see schema.ts). */
export interface EventsTable {
  /** `evt_` and a ULID: sortable by creation, and the webhook-id of every delivery. */
  id: string;
  account_id: number;
  type: string;
  /** Business time: the account's clock (a test clock on test accounts). */
  occurred_at: Instant;
  /** Wall-clock time of the write: retention counts from it. */
  recorded_at: Instant;
  resource_type: string;
  resource_id: string;
  resource_version: number;
  /** The event as JSON, exactly as webhooks deliver it and `GET /v1/events` returns it. */
  payload: string;
}

export interface ResourceVersionsTable {
  account_id: number;
  resource_type: string;
  resource_id: string;
  version: number;
}

export interface EventsEmittedOnceTable {
  account_id: number;
  once_key: string;
  event_id: string;
}

export interface AuditLogTable {
  id: Id;
  account_id: number;
  recorded_at: Instant;
  actor_type: 'api_key' | 'cli' | 'widget';
  api_key_id: number | null;
  client_address: string | null;
  request_id: string | null;
  operation: string;
  event_id: string;
  event_type: string;
  resource_type: string;
  resource_id: string;
  /** JSON: the changed fields before the change (the whole object for a deletion), or null on creation. */
  before: string | null;
  /** JSON: the changed fields after the change (the whole object for a creation), or null on deletion. */
  after: string | null;
}

export interface WebhookEndpointsTable {
  id: Id;
  account_id: number;
  url: string;
  description: string | null;
  /** JSON array of event types, `*` and `prefix.*` wildcards allowed. */
  enabled_events: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  /** `whsec_…`, sealed with the account data key (it must be read back to sign). */
  secret_sealed: string;
  /** The secret before the last rotation, still signing until it expires. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Instant | null;
  /** Since when every delivery failed (null after a success): past 5 days the endpoint is disabled. */
  failing_since: Instant | null;
  /** When failed deliveries were last requeued (`recover`): one recover a minute per endpoint. */
  last_recovered_at: Instant | null;
  created_at: Instant;
  updated_at: Instant;
}

export interface WebhookDeliveriesTable {
  id: Id;
  account_id: number;
  endpoint_id: number;
  event_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Instant | null;
  lease_until: Instant | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Instant;
  delivered_at: Instant | null;
}

export interface WebhookAttemptsTable {
  id: Id;
  /** Its delivery's account: every key of an account's rows names it (docs/operations.md, "Beyond one PostgreSQL"). */
  account_id: number;
  delivery_id: number;
  attempted_at: Instant;
  status_code: number | null;
  duration_ms: number;
  /** At most 1 KB of the response body. */
  response_excerpt: string | null;
  error: string | null;
}

/** The events module's tables, as Kysely's Database type holds them. */
export interface EventsTables {
  events: EventsTable;
  resource_versions: ResourceVersionsTable;
  events_emitted_once: EventsEmittedOnceTable;
  audit_log: AuditLogTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
