import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A capture session on a provider's hosted fields keeps, in the clear, the reference of the setup or sale it
  // started at the provider (Paystack's transaction reference, Stripe's intent id: no secret) and when it started it
  // (wall time), so that the provider's webhook finds the session by the reference and the collection run asks the
  // provider about a session whose browser never came back (docs/hosted-pages.md, "When the browser never comes
  // back").
  // NOTE: SQLite adds one column per ALTER TABLE.
  await db.schema.alterTable('capture_sessions').addColumn('provider_ref', 'text').execute();
  await db.schema.alterTable('capture_sessions').addColumn('provider_started_at', t.instant).execute();
  await db.schema
    .createIndex('capture_sessions_provider_ref')
    .on('capture_sessions')
    .columns(['gateway_id', 'provider_ref'])
    .execute();
}
