import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/** What each stored event counts beyond its properties and transaction id (usageStorage.ts on the day of writing). */
const EVENT_ROW_BYTES = 100;

/**
 * What each account has stored of usage events, kept by the insert from now on (docs/usage.md, "Limits"), so that
 * `billing usage storage` and the cap read one row instead of scanning the events. Filled here from the events
 * already stored, with the size as the service counts it: the bytes of the properties' JSON and of the
 * transaction id, and EVENT_ROW_BYTES for the rest of the row and its index entries.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('usage_storage')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('event_count', 'bigint', (c) => c.notNull())
    .addColumn('stored_bytes', 'bigint', (c) => c.notNull())
    .execute();
  // NOTE: bytes, not characters: PostgreSQL's octet_length; SQLite's length() of the text as a blob (UTF-8).
  const bytesOf = (column: string) =>
    t.isPostgres ? sql`octet_length(${sql.ref(column)})` : sql`length(cast(${sql.ref(column)} as blob))`;
  await sql`
    insert into usage_storage (account_id, event_count, stored_bytes)
    select account_id, count(*), sum(${bytesOf('properties')} + ${bytesOf('transaction_id')} + ${EVENT_ROW_BYTES})
    from usage_events
    group by account_id`.execute(db);
}
