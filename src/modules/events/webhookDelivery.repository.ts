import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';

/** A delivery held by this worker until `leaseUntil`, with what sending it needs. */
export interface LeasedDelivery {
  id: number;
  accountId: number;
  endpointId: number;
  eventId: string;
  /** Attempts made before this one in the current round of the schedule. */
  attempts: number;
  leaseUntil: string;
}

function dueDeliveries(db: Db, now: string) {
  return db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .where('endpoint_id', 'in', (eb) =>
      eb.selectFrom('webhook_endpoints').select('id').where('status', '=', 'enabled'),
    );
}

/**
 * Endpoints with deliveries due and not leased, those waiting longest first; `skipEndpoints` have all the
 * requests in flight this process allows them. A hint read without locks: the lease decides.
 */
export async function endpointsWithDueDeliveries(
  db: Db,
  now: string,
  limit: number,
  skipEndpoints: readonly number[],
): Promise<number[]> {
  const rows = await dueDeliveries(db, now)
    .select('endpoint_id')
    .$if(skipEndpoints.length > 0, (qb) => qb.where('endpoint_id', 'not in', skipEndpoints))
    .groupBy('endpoint_id')
    .orderBy((eb) => eb.fn.min('id'))
    .limit(limit)
    .execute();
  return rows.map((row) => row.endpoint_id);
}

/**
 * Leases up to `limit` due deliveries of one endpoint to the caller until `leaseUntil`: pending, of an enabled
 * endpoint, due (`next_attempt_at` null means at once), and not held by another worker (or held past its lease).
 * NOTE: PostgreSQL skips rows another worker has locked (SKIP LOCKED); SQLite runs one writer at a time, so the
 * single UPDATE is already exclusive.
 */
export async function leaseDueDeliveries(
  db: Db,
  at: { now: string; leaseUntil: string },
  endpointId: number,
  limit: number,
): Promise<LeasedDelivery[]> {
  const due = dueDeliveries(db, at.now)
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .orderBy('id')
    .limit(limit)
    .$if(isPostgres(db), (qb) => qb.forUpdate().skipLocked());
  const rows = await db
    .updateTable('webhook_deliveries')
    .set({ lease_until: at.leaseUntil })
    .where('id', 'in', due)
    .returning(['id', 'account_id', 'endpoint_id', 'event_id', 'attempts'])
    .execute();
  return rows
    .map((row) => ({
      id: row.id,
      accountId: row.account_id,
      endpointId: row.endpoint_id,
      eventId: row.event_id,
      attempts: row.attempts,
      leaseUntil: at.leaseUntil,
    }))
    .sort((a, b) => a.id - b.id);
}

/** Gives leases back without an attempt (more than an endpoint may have in flight, or the service stopping). */
export async function releaseLeases(
  db: Db,
  leases: readonly { id: number; leaseUntil: string }[],
): Promise<void> {
  for (const lease of leases) {
    await db
      .updateTable('webhook_deliveries')
      .set({ lease_until: null })
      .where('id', '=', lease.id)
      .where('lease_until', '=', lease.leaseUntil)
      .execute();
  }
}

/** The stored event bodies, sent byte for byte. */
export async function eventPayloads(db: Db, eventIds: readonly string[]): Promise<Map<string, string>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .select(['id', 'payload'])
    .where('id', 'in', [...new Set(eventIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.payload]));
}

export interface EndpointForSending {
  id: number;
  account_id: number;
  url: string;
  status: 'enabled' | 'disabled';
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
}

export async function endpointsForSending(
  db: Db,
  endpointIds: readonly number[],
): Promise<Map<number, EndpointForSending>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select([
      'id',
      'account_id',
      'url',
      'status',
      'secret_sealed',
      'previous_secret_sealed',
      'previous_secret_expires_at',
      'failing_since',
    ])
    .where('id', 'in', [...new Set(endpointIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

export interface AttemptRecord {
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
}

export type DeliveryOutcome =
  { status: 'delivered'; at: string } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: string };

/**
 * Records an attempt and what became of the delivery, if the caller still holds its lease; returns false (and
 * writes nothing) when the lease ran out and another worker may have taken the delivery over.
 */
export async function recordAttempt(
  db: Db,
  lease: { id: number; leaseUntil: string },
  attempt: AttemptRecord,
  outcome: DeliveryOutcome,
): Promise<boolean> {
  const updated = await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      attempts: sql<number>`attempts + 1`,
      lease_until: null,
      next_attempt_at: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
      last_status_code: attempt.statusCode,
      last_error: attempt.error,
      ...(outcome.status === 'delivered' ? { delivered_at: outcome.at } : {}),
    })
    .where('id', '=', lease.id)
    .where('lease_until', '=', lease.leaseUntil)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  await db
    .insertInto('webhook_attempts')
    .values({
      delivery_id: lease.id,
      attempted_at: attempt.attemptedAt,
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      response_excerpt: attempt.excerpt,
      error: attempt.error,
    })
    .execute();
  return true;
}

export async function clearFailingSince(db: Db, endpointId: number): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', endpointId)
    .where('failing_since', 'is not', null)
    .execute();
}

/** Since when the endpoint has been failing: set now by the first failure after a success. */
export async function markFailing(db: Db, endpointId: number, at: string): Promise<string | undefined> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: at })
    .where('id', '=', endpointId)
    .where('failing_since', 'is', null)
    .execute();
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('failing_since')
    .where('id', '=', endpointId)
    .executeTakeFirst();
  return row?.failing_since ?? undefined;
}
