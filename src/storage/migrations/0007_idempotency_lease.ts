import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // Which running process holds a reserved key whose response is not recorded yet (see idempotencyLease.ts).
  await db.schema.alterTable('idempotency_keys').addColumn('lease', 'text').execute();
  // Whether the key's operation records its response inside its own transaction: only then did a dead lease's
  // request commit nothing, so that a retry may take the key over at once.
  await db.schema
    .alterTable('idempotency_keys')
    .addColumn('records_in_transaction', t.bool, (c) => c.notNull().defaultTo(t.isPostgres ? false : 0))
    .execute();
}
