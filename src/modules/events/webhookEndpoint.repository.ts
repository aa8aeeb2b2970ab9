import { sql } from 'kysely';
import type { Selectable, Updateable } from 'kysely';
import type { Page } from '../../core/paging.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import type { WebhookEndpointsTable } from './tables.ts';
import type { WebhookEndpoint, WebhookEndpointStatus } from './webhookEndpoint.ts';

type WebhookEndpointRow = Omit<Selectable<WebhookEndpointsTable>, 'account_id'>;

/** The endpoint as a change reads it under its lock: with the sealed secret that a rotation keeps as previous. */
export interface LockedEndpoint extends WebhookEndpoint {
  secretSealed: string;
}

/** A new endpoint: its sealed secret, and the instant it was made (its first UpdatedDate too). */
export interface NewEndpoint {
  url: string;
  description: string | null;
  enabledEvents: readonly string[];
  status: WebhookEndpointStatus;
  /** Why one made disabled is (a go-live's copy, until the merchant confirms it); null otherwise. */
  disabledReason?: string | null;
  secretSealed: string;
  createdAt: string;
}

/** What a change writes: the fields given, and always the instant of the change. */
export interface EndpointChanges {
  url?: string;
  description?: string | null;
  enabledEvents?: readonly string[];
  status?: WebhookEndpointStatus;
  disabledReason?: string | null;
  failingSince?: string | null;
  secretSealed?: string;
  previousSecretSealed?: string | null;
  previousSecretExpiresAt?: string | null;
  updatedAt: string;
}

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
export async function lockEndpoint(
  db: Db,
  accountId: number,
  id: number,
): Promise<LockedEndpoint | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .$if(isPostgres(db), (qb) => qb.forUpdate())
    .executeTakeFirst();
  return row && { ...webhookEndpointFromRow(row), secretSealed: row.secret_sealed };
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

export async function insertEndpoint(db: Db, accountId: number, endpoint: NewEndpoint): Promise<number> {
  const inserted = await db
    .insertInto('webhook_endpoints')
    .values({
      account_id: accountId,
      url: endpoint.url,
      description: endpoint.description,
      enabled_events: JSON.stringify(endpoint.enabledEvents),
      status: endpoint.status,
      disabled_reason: endpoint.disabledReason ?? null,
      secret_sealed: endpoint.secretSealed,
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      failing_since: null,
      last_recovered_at: null,
      created_at: endpoint.createdAt,
      updated_at: endpoint.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateEndpoint(
  db: Db,
  accountId: number,
  id: number,
  changes: EndpointChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set(endpointColumnsOf(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

function endpointColumnsOf(changes: EndpointChanges): Updateable<WebhookEndpointsTable> {
  const columns: Updateable<WebhookEndpointsTable> = { updated_at: changes.updatedAt };
  if (changes.url !== undefined) columns.url = changes.url;
  if (changes.description !== undefined) columns.description = changes.description;
  if (changes.enabledEvents !== undefined) columns.enabled_events = JSON.stringify(changes.enabledEvents);
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.disabledReason !== undefined) columns.disabled_reason = changes.disabledReason;
  if (changes.failingSince !== undefined) columns.failing_since = changes.failingSince;
  if (changes.secretSealed !== undefined) columns.secret_sealed = changes.secretSealed;
  if (changes.previousSecretSealed !== undefined)
    columns.previous_secret_sealed = changes.previousSecretSealed;
  if (changes.previousSecretExpiresAt !== undefined) {
    columns.previous_secret_expires_at = changes.previousSecretExpiresAt;
  }
  return columns;
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
