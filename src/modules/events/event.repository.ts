import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import { MAX_CACHED_LIST_LENGTH, preparedQuery } from '../../storage/prepared.ts';
import type { AuditLogTable, WebhookDeliveriesTable } from './tables.ts';
import type { SendingEndpoint } from '../../context.ts';
import { SENDING_ENDPOINT_COLUMNS, sendingEndpointFromRow } from './webhookDelivery.repository.ts';

export interface NewEventRow {
  id: string;
  account_id: number;
  type: string;
  occurred_at: string;
  recorded_at: string;
  resource_type: string;
  resource_id: string;
  resource_version: number;
  payload: string;
}

/** Rows per INSERT: as many as a prepared statement keeps compiled (far below either dialect's limits). */
const INSERT_CHUNK = MAX_CACHED_LIST_LENGTH;

async function insertChunked<T>(rows: readonly T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let at = 0; at < rows.length; at += INSERT_CHUNK) await insert(rows.slice(at, at + INSERT_CHUNK));
}

/**
 * Adds `count` to each resource's version counter and returns the new value. NOTE: the upsert takes the counter
 * row's lock until commit; resources are visited in one order so two transactions never wait on each other
 * crosswise.
 */
export async function bumpResourceVersions(
  db: Db,
  accountId: number,
  bumps: readonly { type: string; id: string; count: number }[],
): Promise<Map<string, number>> {
  const sorted = [...bumps].sort((a, b) =>
    a.type === b.type ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.type < b.type ? -1 : 1,
  );
  const versions = new Map<string, number>();
  await insertChunked(sorted, async (chunk) => {
    const rows = await addToVersions(
      db,
      chunk.map((bump) => ({
        account_id: accountId,
        resource_type: bump.type,
        resource_id: bump.id,
        version: bump.count,
      })),
    );
    for (const row of rows) versions.set(`${row.resource_type}:${row.resource_id}`, Number(row.version));
  });
  return versions;
}

// Written by every change: prepared once (see preparedQuery), not built anew each time.
const addToVersions = preparedQuery(
  (db, rows: { account_id: number; resource_type: string; resource_id: string; version: number }[]) =>
    db
      .insertInto('resource_versions')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'resource_type', 'resource_id'])
          .doUpdateSet({ version: sql<number>`resource_versions.version + excluded.version` }),
      )
      .returning(['resource_type', 'resource_id', 'version']),
);
const eventsInsert = preparedQuery((db, rows: NewEventRow[]) => db.insertInto('events').values(rows));
const auditInsert = preparedQuery((db, rows: Insertable<AuditLogTable>[]) =>
  db.insertInto('audit_log').values(rows),
);
const deliveriesInsert = preparedQuery((db, rows: Insertable<WebhookDeliveriesTable>[]) =>
  db.insertInto('webhook_deliveries').values(rows),
);

/**
 * The account's enabled endpoints with what they subscribe to, and what sending to them needs: events fan out to
 * them as they are written, and some are handed to this process's sender at once.
 */
const enabledEndpointsQuery = preparedQuery((db, accountId: number) =>
  db
    .selectFrom('webhook_endpoints')
    .select([...SENDING_ENDPOINT_COLUMNS, 'enabled_events'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'enabled'),
);

/**
 * On PostgreSQL, a change's events (and audit entries) written and its account's enabled endpoints read in one
 * statement: the inserts in WITH (run to completion whether read or not), the endpoints its SELECT.
 */
const eventsWrittenEndpointsRead = preparedQuery((db, events: NewEventRow[], accountId: number) =>
  db
    .with('written_events', (qb) => qb.insertInto('events').values(events))
    .selectFrom('webhook_endpoints')
    .select([...SENDING_ENDPOINT_COLUMNS, 'enabled_events'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'enabled'),
);
const eventsAndAuditWrittenEndpointsRead = preparedQuery(
  (db, events: NewEventRow[], audit: Insertable<AuditLogTable>[], accountId: number) =>
    db
      .with('written_events', (qb) => qb.insertInto('events').values(events))
      .with('written_audit', (qb) => qb.insertInto('audit_log').values(audit))
      .selectFrom('webhook_endpoints')
      .select([...SENDING_ENDPOINT_COLUMNS, 'enabled_events'])
      .where('account_id', '=', accountId)
      .where('status', '=', 'enabled'),
);

/** The three statements of insertEventsReadEndpoints apart. */
async function insertApartThenRead(
  db: Db,
  accountId: number,
  events: readonly NewEventRow[],
  audit: readonly Insertable<AuditLogTable>[],
) {
  await insertChunked(events, (chunk) => eventsInsert(db, chunk));
  await insertChunked(audit, (chunk) => auditInsert(db, chunk));
  return enabledEndpointsQuery(db, accountId);
}

export interface SubscribedEndpoint {
  endpoint: SendingEndpoint;
  /** The event-type patterns it subscribes to. */
  enabledEvents: string[];
}

/**
 * Writes events and their audit entries; returns the account's enabled endpoints, which the events fan out to.
 * NOTE: on PostgreSQL every statement is a round trip (docs/benchmarks.md, "Payments"), so a change's events and
 * audit entries of up to a chunk each are one statement with the endpoints' read; SQLite, whose WITH takes no
 * INSERT and whose statements cost no round trip, runs the three apart, as PostgreSQL does for larger changes.
 */
export async function insertEventsReadEndpoints(
  db: Db,
  accountId: number,
  events: readonly NewEventRow[],
  audit: readonly Insertable<AuditLogTable>[],
): Promise<SubscribedEndpoint[]> {
  const oneStatement =
    isPostgres(db) && events.length > 0 && events.length <= INSERT_CHUNK && audit.length <= INSERT_CHUNK;
  const rows = !oneStatement
    ? await insertApartThenRead(db, accountId, events, audit)
    : audit.length === 0
      ? await eventsWrittenEndpointsRead(db, [...events], accountId)
      : await eventsAndAuditWrittenEndpointsRead(db, [...events], [...audit], accountId);
  return rows.map((row) => ({
    endpoint: sendingEndpointFromRow(row),
    enabledEvents: JSON.parse(row.enabled_events) as string[],
  }));
}

/** Those of the keys that were already claimed. */
export async function claimedOnceKeys(
  db: Db,
  accountId: number,
  keys: readonly string[],
): Promise<Set<string>> {
  const claimed = new Set<string>();
  for (let at = 0; at < keys.length; at += INSERT_CHUNK) {
    const rows = await db
      .selectFrom('events_emitted_once')
      .select('once_key')
      .where('account_id', '=', accountId)
      .where('once_key', 'in', keys.slice(at, at + INSERT_CHUNK))
      .execute();
    for (const row of rows) claimed.add(row.once_key);
  }
  return claimed;
}

/** Claims once-keys; returns those that were not claimed before. */
export async function claimOnceKeys(
  db: Db,
  accountId: number,
  claims: readonly { onceKey: string; eventId: string }[],
): Promise<Set<string>> {
  const claimed = new Set<string>();
  await insertChunked(claims, async (chunk) => {
    const rows = await db
      .insertInto('events_emitted_once')
      .values(chunk.map((c) => ({ account_id: accountId, once_key: c.onceKey, event_id: c.eventId })))
      .onConflict((oc) => oc.columns(['account_id', 'once_key']).doNothing())
      .returning('once_key')
      .execute();
    for (const row of rows) claimed.add(row.once_key);
  });
  return claimed;
}

export interface NewDelivery {
  accountId: number;
  endpointId: number;
  eventId: string;
  at: string;
}

const deliveryRow = (row: NewDelivery, leaseUntil: string | null) => ({
  account_id: row.accountId,
  endpoint_id: row.endpointId,
  event_id: row.eventId,
  status: 'pending' as const,
  attempts: 0,
  // Due at once: the worker schedules retries on its own clock, which an account's test clock is not.
  next_attempt_at: null,
  lease_until: leaseUntil,
  created_at: row.at,
});

/** Deliveries waiting for a worker's lease. */
export async function insertDeliveries(db: Db, rows: readonly NewDelivery[]): Promise<void> {
  await insertChunked(rows, (chunk) =>
    deliveriesInsert(
      db,
      chunk.map((row) => deliveryRow(row, null)),
    ),
  );
}

const leasedDeliveriesInsert = preparedQuery((db, rows: Insertable<WebhookDeliveriesTable>[]) =>
  db.insertInto('webhook_deliveries').values(rows).returning(['id', 'event_id', 'endpoint_id']),
);

/** Deliveries written already leased (to this process's sender); their ids by `eventId:endpointId`. */
export async function insertLeasedDeliveries(
  db: Db,
  rows: readonly NewDelivery[],
  leaseUntil: string,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  await insertChunked(rows, async (chunk) => {
    const inserted = await leasedDeliveriesInsert(
      db,
      chunk.map((row) => deliveryRow(row, leaseUntil)),
    );
    for (const row of inserted) ids.set(`${row.event_id}:${row.endpoint_id}`, row.id);
  });
  return ids;
}
