import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import { MAX_CACHED_LIST_LENGTH, preparedQuery } from '../../storage/prepared.ts';
import type { AuditLogTable, WebhookDeliveriesTable } from '../../storage/schema.events.ts';

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
  db
    .insertInto('webhook_deliveries')
    .values(rows)
    .returning(['id', 'event_id', 'endpoint_id', 'lease_until']),
);

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

/**
 * The account's enabled endpoints with what they subscribe to, and what sending to them needs: events fan out to
 * them as they are written, and some are handed to this process's sender at once.
 */
export const enabledEndpoints = preparedQuery((db, accountId: number) =>
  db
    .selectFrom('webhook_endpoints')
    .select([
      'id',
      'enabled_events',
      'account_id',
      'url',
      'status',
      'secret_sealed',
      'previous_secret_sealed',
      'previous_secret_expires_at',
      'failing_since',
    ])
    .where('account_id', '=', accountId)
    .where('status', '=', 'enabled'),
);

export interface NewDelivery {
  accountId: number;
  endpointId: number;
  eventId: string;
  at: string;
  /** Set for a delivery written leased to this process's sender, which it is handed over to. */
  leaseUntil: string | null;
}

const deliveryRow = (row: NewDelivery) => ({
  account_id: row.accountId,
  endpoint_id: row.endpointId,
  event_id: row.eventId,
  status: 'pending' as const,
  attempts: 0,
  // Due at once: the worker schedules retries on its own clock, which an account's test clock is not.
  next_attempt_at: null,
  lease_until: row.leaseUntil,
  created_at: row.at,
});

/** What one call of emitEvents writes. */
export interface EventWrites {
  events: NewEventRow[];
  deliveries: NewDelivery[];
  audit: Insertable<AuditLogTable>[];
}

/**
 * Writes events with their deliveries and audit entries; answers the ids of the deliveries written leased, by
 * `eventId:endpointId`. On PostgreSQL one statement (each is a round trip, and most changes make one or two
 * events), on SQLite a few prepared ones.
 */
export async function writeEvents(db: Db, writes: EventWrites): Promise<Map<string, number>> {
  if (isPostgres(db)) return writeOnPostgres(db, writes);
  await insertChunked(writes.events, (chunk) => eventsInsert(db, chunk));
  const ids = new Map<string, number>();
  await insertChunked(writes.deliveries, async (chunk) => {
    const inserted = await deliveriesInsert(db, chunk.map(deliveryRow));
    for (const row of inserted) {
      if (row.lease_until !== null) ids.set(`${row.event_id}:${row.endpoint_id}`, row.id);
    }
  });
  await insertChunked(writes.audit, (chunk) => auditInsert(db, chunk));
  return ids;
}

/** The three inserts as one statement: rows passed as arrays, so that its text is the same whatever their number. */
async function writeOnPostgres(
  db: Db,
  { events, deliveries, audit }: EventWrites,
): Promise<Map<string, number>> {
  const of = <T, V>(rows: readonly T[], value: (row: T) => V) => rows.map(value);
  const { rows } = await sql<{
    id: number;
    event_id: string;
    endpoint_id: number;
    lease_until: string | null;
  }>`
    with written_events as (
      insert into events (id, account_id, type, occurred_at, recorded_at, resource_type, resource_id,
        resource_version, payload)
      select * from unnest(${of(events, (e) => e.id)}::text[], ${of(events, (e) => e.account_id)}::bigint[],
        ${of(events, (e) => e.type)}::text[], ${of(events, (e) => e.occurred_at)}::timestamptz[],
        ${of(events, (e) => e.recorded_at)}::timestamptz[], ${of(events, (e) => e.resource_type)}::text[],
        ${of(events, (e) => e.resource_id)}::text[], ${of(events, (e) => e.resource_version)}::integer[],
        ${of(events, (e) => e.payload)}::text[])
    ),
    written_audit as (
      insert into audit_log (account_id, recorded_at, actor_type, api_key_id, client_address, request_id, operation,
        event_id, event_type, resource_type, resource_id, before, after)
      select a.account_id, a.recorded_at, a.actor_type, a.api_key_id, a.client_address, a.request_id, a.operation,
        a.event_id, a.event_type, a.resource_type, a.resource_id, a.before, a.after
      from unnest(${of(audit, (a) => a.account_id)}::bigint[], ${of(audit, (a) => a.recorded_at)}::timestamptz[],
        ${of(audit, (a) => a.actor_type)}::text[], ${of(audit, (a) => a.api_key_id ?? null)}::bigint[],
        ${of(audit, (a) => a.client_address ?? null)}::text[], ${of(audit, (a) => a.request_id ?? null)}::text[],
        ${of(audit, (a) => a.operation)}::text[], ${of(audit, (a) => a.event_id)}::text[],
        ${of(audit, (a) => a.event_type)}::text[], ${of(audit, (a) => a.resource_type)}::text[],
        ${of(audit, (a) => a.resource_id)}::text[], ${of(audit, (a) => a.before ?? null)}::text[],
        ${of(audit, (a) => a.after ?? null)}::text[])
        with ordinality as a(account_id, recorded_at, actor_type, api_key_id, client_address, request_id, operation,
          event_id, event_type, resource_type, resource_id, before, after, n)
      order by a.n
    )
    insert into webhook_deliveries (account_id, endpoint_id, event_id, status, attempts, next_attempt_at,
      lease_until, created_at)
    select d.account_id, d.endpoint_id, d.event_id, 'pending', 0, null, d.lease_until, d.created_at
    from unnest(${of(deliveries, (d) => d.accountId)}::bigint[], ${of(deliveries, (d) => d.endpointId)}::bigint[],
      ${of(deliveries, (d) => d.eventId)}::text[], ${of(deliveries, (d) => d.leaseUntil)}::timestamptz[],
      ${of(deliveries, (d) => d.at)}::timestamptz[])
      as d(account_id, endpoint_id, event_id, lease_until, created_at)
    returning id, event_id, endpoint_id, lease_until`.execute(db);
  return new Map(
    rows.flatMap((row) =>
      row.lease_until === null ? [] : [[`${row.event_id}:${row.endpoint_id}`, Number(row.id)] as const],
    ),
  );
}
