import { sql } from 'kysely';
import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import type { SendingEndpoint } from '../../context.ts';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './tables.ts';

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

/**
 * Deliveries a worker may take now: pending, due (`next_attempt_at` null means at once), and not held by another
 * worker (or held past its lease). Written against the alias `d`.
 */
function takeable(eb: ExpressionBuilder<{ d: WebhookDeliveriesTable }, 'd'>, now: string) {
  return eb.and([
    eb('d.status', '=', 'pending'),
    eb.or([eb('d.next_attempt_at', 'is', null), eb('d.next_attempt_at', '<=', now)]),
    eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', now)]),
  ]);
}

/**
 * Enabled endpoints with deliveries to take, those waiting longest first; `skipEndpoints` have all the requests in
 * flight this process allows them. A hint read without locks: the lease decides. Each endpoint is one probe of its
 * queue (webhook_deliveries_queue), never a walk of every pending or delivered row.
 */
export async function endpointsWithDueDeliveries(
  db: Db,
  now: string,
  limit: number,
  skipEndpoints: readonly number[],
): Promise<number[]> {
  const oldestDue = db
    .selectFrom('webhook_endpoints as e')
    .where('e.status', '=', 'enabled')
    .$if(skipEndpoints.length > 0, (qb) => qb.where('e.id', 'not in', skipEndpoints))
    .select((eb) => [
      'e.id',
      eb
        .selectFrom('webhook_deliveries as d')
        .select('d.id')
        .whereRef('d.endpoint_id', '=', 'e.id')
        .where((eb) => takeable(eb, now))
        .orderBy('d.id')
        .limit(1)
        .as('oldest'),
    ]);
  const rows = await db
    .selectFrom(oldestDue.as('q'))
    .select('q.id')
    .where('q.oldest', 'is not', null)
    .orderBy('q.oldest')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

// Run after every attempt: prepared once (see preparedQuery), not built anew each time.
const leaseQuery = preparedQuery((db, endpointId: number, now: string, leaseUntil: string, limit: number) =>
  db
    .updateTable('webhook_deliveries')
    .set({ lease_until: leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries as d')
        .select('d.id')
        .where('d.endpoint_id', '=', endpointId)
        .where((eb) => takeable(eb, now))
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('webhook_endpoints')
              .select('id')
              .where('id', '=', endpointId)
              .where('status', '=', 'enabled'),
          ),
        )
        .orderBy('d.id')
        .limit(limit)
        .$if(isPostgres(db), (qb) => qb.forUpdate().skipLocked()),
    )
    .returning(['id', 'account_id', 'endpoint_id', 'event_id', 'attempts']),
);

/**
 * Leases up to `limit` takeable deliveries of one enabled endpoint to the caller until `leaseUntil`, oldest first.
 * NOTE: PostgreSQL skips rows another worker has locked (SKIP LOCKED); SQLite runs one writer at a time, so the
 * single UPDATE is already exclusive.
 */
export async function leaseDueDeliveries(
  db: Db,
  at: { now: string; leaseUntil: string },
  endpointId: number,
  limit: number,
): Promise<LeasedDelivery[]> {
  const rows = await leaseQuery(db, endpointId, at.now, at.leaseUntil, limit);
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

const payloadsQuery = preparedQuery((db, eventIds: string[]) =>
  db.selectFrom('events').select(['id', 'payload']).where('id', 'in', eventIds),
);

/** The stored event bodies, sent byte for byte. */
export async function eventPayloads(db: Db, eventIds: readonly string[]): Promise<Map<string, string>> {
  if (eventIds.length === 0) return new Map();
  const rows = await payloadsQuery(db, [...new Set(eventIds)]);
  return new Map(rows.map((row) => [row.id, row.payload]));
}

/** The columns of an endpoint that sending a delivery to it needs (SendingEndpoint). */
export const SENDING_ENDPOINT_COLUMNS = [
  'id',
  'account_id',
  'url',
  'status',
  'secret_sealed',
  'previous_secret_sealed',
  'previous_secret_expires_at',
  'failing_since',
] as const;

type SendingEndpointRow = Pick<Selectable<WebhookEndpointsTable>, (typeof SENDING_ENDPOINT_COLUMNS)[number]>;

export function sendingEndpointFromRow(row: SendingEndpointRow): SendingEndpoint {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    status: row.status,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    failingSince: row.failing_since,
  };
}

const endpointsQuery = preparedQuery((db, endpointIds: number[]) =>
  db.selectFrom('webhook_endpoints').select(SENDING_ENDPOINT_COLUMNS).where('id', 'in', endpointIds),
);

export async function endpointsForSending(
  db: Db,
  endpointIds: readonly number[],
): Promise<Map<number, SendingEndpoint>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await endpointsQuery(db, [...new Set(endpointIds)]);
  return new Map(rows.map((row) => [row.id, sendingEndpointFromRow(row)]));
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

const settleQuery = preparedQuery(
  (
    db,
    id: number,
    leaseUntil: string,
    status: DeliveryOutcome['status'],
    nextAttemptAt: string | null,
    deliveredAt: string | null,
    statusCode: number | null,
    error: string | null,
  ) =>
    db
      .updateTable('webhook_deliveries')
      .set({
        status,
        attempts: sql<number>`attempts + 1`,
        lease_until: null,
        next_attempt_at: nextAttemptAt,
        last_status_code: statusCode,
        last_error: error,
        // A failed attempt at a delivery sent again keeps when it was first delivered.
        delivered_at: sql<string | null>`coalesce(${deliveredAt}, delivered_at)`,
      })
      .where('id', '=', id)
      .where('lease_until', '=', leaseUntil)
      .returning(['id', 'account_id']),
);

const attemptInsert = preparedQuery((db, rows: Insertable<WebhookAttemptsTable>[]) =>
  db.insertInto('webhook_attempts').values(rows),
);

export interface SettledAttempt {
  lease: { id: number; leaseUntil: string };
  attempt: AttemptRecord;
  outcome: DeliveryOutcome;
}

/**
 * Records attempts and what became of their deliveries, each if the caller still holds its lease; an attempt whose
 * lease ran out (another worker may have taken the delivery over) is not written, and its answer is false. All or
 * nothing: in the caller's transaction, or in one of its own.
 */
export async function recordAttempts(db: Db, settled: readonly SettledAttempt[]): Promise<boolean[]> {
  const recordedIds = isPostgres(db)
    ? await recordOnPostgres(db, settled)
    : db.isTransaction
      ? await recordOneByOne(db, settled)
      : await db.transaction().execute((trx) => recordOneByOne(trx, settled));
  return settled.map(({ lease }) => recordedIds.has(lease.id));
}

/** SQLite: a prepared UPDATE per delivery (a few microseconds each), then the attempts in one INSERT. */
async function recordOneByOne(db: Db, settled: readonly SettledAttempt[]): Promise<Set<number>> {
  const accountOf = new Map<number, number>();
  for (const { lease, attempt, outcome } of settled) {
    const updated = await settleQuery(
      db,
      lease.id,
      lease.leaseUntil,
      outcome.status,
      outcome.status === 'pending' ? outcome.nextAttemptAt : null,
      outcome.status === 'delivered' ? outcome.at : null,
      attempt.statusCode,
      attempt.error,
    );
    if (updated[0]) accountOf.set(lease.id, Number(updated[0].account_id));
  }
  const rows = settled
    .filter(({ lease }) => accountOf.has(lease.id))
    .map(({ lease, attempt }) => ({
      account_id: accountOf.get(lease.id)!,
      delivery_id: lease.id,
      attempted_at: attempt.attemptedAt,
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      response_excerpt: attempt.excerpt,
      error: attempt.error,
    }));
  if (rows.length > 0) await attemptInsert(db, rows);
  return new Set(accountOf.keys());
}

/**
 * PostgreSQL: one statement for the whole group, the deliveries' new state and the attempts (a round trip each
 * would cost more than the writing), the values passed as arrays so that its text is the same whatever the
 * group's size.
 */
async function recordOnPostgres(db: Db, settled: readonly SettledAttempt[]): Promise<Set<number>> {
  const column = <T>(value: (attempt: SettledAttempt) => T) => settled.map(value);
  const { rows } = await sql<{ id: number }>`
    with v as (
      select * from unnest(
        ${column((s) => s.lease.id)}::bigint[], ${column((s) => s.lease.leaseUntil)}::timestamptz[],
        ${column((s) => s.outcome.status)}::text[],
        ${column((s) => (s.outcome.status === 'pending' ? s.outcome.nextAttemptAt : null))}::timestamptz[],
        ${column((s) => (s.outcome.status === 'delivered' ? s.outcome.at : null))}::timestamptz[],
        ${column((s) => s.attempt.attemptedAt)}::timestamptz[], ${column((s) => s.attempt.statusCode)}::integer[],
        ${column((s) => s.attempt.durationMs)}::integer[], ${column((s) => s.attempt.excerpt)}::text[],
        ${column((s) => s.attempt.error)}::text[]
      ) as v(id, lease_until, status, next_attempt_at, delivered_at, attempted_at, status_code, duration_ms,
        excerpt, error)
    ),
    settled as (
      update webhook_deliveries as d
      set status = v.status, attempts = d.attempts + 1, lease_until = null, next_attempt_at = v.next_attempt_at,
        last_status_code = v.status_code, last_error = v.error,
        -- A failed attempt at a delivery sent again keeps when it was first delivered.
        delivered_at = coalesce(v.delivered_at, d.delivered_at)
      from v where d.id = v.id and d.lease_until = v.lease_until
      returning d.id, d.account_id
    ),
    attempts as (
      insert into webhook_attempts
        (account_id, delivery_id, attempted_at, status_code, duration_ms, response_excerpt, error)
      select settled.account_id, v.id, v.attempted_at, v.status_code, v.duration_ms, v.excerpt, v.error
      from v join settled on settled.id = v.id
    )
    select id from settled`.execute(db);
  return new Set(rows.map((row) => Number(row.id)));
}

export async function clearFailingSince(db: Db, endpointIds: readonly number[]): Promise<void> {
  if (endpointIds.length === 0) return;
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', 'in', endpointIds)
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
