import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // Which running process holds a reserved key whose response is not recorded yet (see idempotencyLease.ts).
  await db.schema.alterTable('idempotency_keys').addColumn('lease', 'text').execute();
}
