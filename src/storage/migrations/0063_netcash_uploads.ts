import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A netcash batch's file uploaded through Netcash's web service (docs/gateways/netcash.md, "Uploading through
  // NIWS_NIF"): the file token Netcash answered, and when its load report said the file was loaded. A file of a
  // batch without the web service: the last business date the staff were told it waits to reach Netcash.
  // NOTE: one column an ALTER TABLE: SQLite adds no more.
  await db.schema.alterTable('batches').addColumn('upload_token', 'text').execute();
  await db.schema.alterTable('batches').addColumn('upload_accepted_at', t.instant).execute();
  await db.schema.alterTable('batches').addColumn('file_reminded_on', t.date).execute();
  // Netcash's daily statements a netcash gateway fetched (docs/gateways/netcash.md, "Statements"): one a gateway and
  // day, asked under a polling id, applied to the gateway's batches once.
  await withId(db.schema.createTable('netcash_statements'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('gateway_id', 'bigint', (c) => c.notNull().references('gateways.id'))
    .addColumn('statement_date', t.date, (c) => c.notNull())
    .addColumn('polling_id', 'text')
    // Not asked again before then (business time): a statement not ready, or a refusal, waits.
    .addColumn('next_ask_at', t.instant)
    .addColumn('applied_at', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('netcash_statements_day', ['account_id', 'gateway_id', 'statement_date'])
    .execute();
}
