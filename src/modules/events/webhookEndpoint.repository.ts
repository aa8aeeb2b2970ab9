import { sql } from 'kysely';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Page } from '../../core/paging.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import type { WebhookEndpointsTable } from '../../storage/schema.events.ts';
import type { WebhookEndpoint } from './webhookEndpoint.ts';

export type WebhookEndpointRow = Omit<Selectable<WebhookEndpointsTable>, 'account_id'>;

function webhookEndpointFromRow(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    enabledEvents: JSON.parse(row.enabled_events) as string[],
    status: row.status,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const ENDPOINT_COLUMNS = [
  'id',
  'url',
  'description',
  'enabled_events',
  'status',
  'disabled_reason',
  'secret_sealed',
  'previous_secret_sealed',
  'previous_secret_expires_at',
  'failing_since',
  'last_recovered_at',
  'created_at',
  'updated_at',
] as const;

export async function findEndpoint(
  db: Db,
  accountId: number,
  id: number,
): Promise<WebhookEndpoint | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && webhookEndpointFromRow(row);
}

/**
 * Reads the endpoint and locks it until the transaction ends, so that two rotations take turns (each keeps the
 * secret the other made). NOTE: FOR UPDATE is PostgreSQL's row lock; an SQLite transaction holds the database's
 * write lock already (docs/architecture.md, "Locks").
 */
export function lockEndpoint(db: Db, accountId: number, id: number): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .$if(isPostgres(db), (qb) => qb.forUpdate())
    .executeTakeFirst();
}

export async function endpointsByIds(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<WebhookEndpoint[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
  return rows.map(webhookEndpointFromRow);
}

export async function listEndpoints(db: Db, accountId: number, page: Page): Promise<WebhookEndpoint[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(webhookEndpointFromRow);
}

/**
 * Makes the account's endpoint creations take turns until the transaction ends, so that the count read next is the
 * one the insert adds to and the per-account cap holds under concurrent requests. NOTE: on PostgreSQL a
 * transaction-scoped advisory lock on the pair (this table, the account), which holds also while the account has
 * no endpoint to lock (the two-key form never meets the idempotency lease's one-key locks). An SQLite
 * transaction holds the database's write lock already (docs/architecture.md, "Locks").
 */
export async function lockAccountEndpointCreation(db: Db, accountId: number): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select pg_advisory_xact_lock(hashtext('webhook_endpoints'), ${accountId}::integer)`.execute(db);
}

/** How many endpoints the account has, enabled or not. */
export async function countEndpoints(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertEndpoint(db: Db, row: Insertable<WebhookEndpointsTable>): Promise<number> {
  const inserted = await db
    .insertInto('webhook_endpoints')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateEndpoint(
  db: Db,
  accountId: number,
  id: number,
  changes: Updateable<WebhookEndpointsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteEndpoint(db: Db, accountId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Takes the endpoint's once-a-minute recover slot: true when no recover ran since `notBefore`. One conditional
 * UPDATE, so two concurrent calls cannot both take it.
 */
export async function claimRecoverSlot(
  db: Db,
  accountId: number,
  id: number,
  now: string,
  notBefore: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ last_recovered_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_recovered_at', 'is', null), eb('last_recovered_at', '<=', notBefore)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
