import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // The capture frame's failed submits by client address, across sessions and accounts
  // (docs/design/hosted-pages.md, "Capture widget"): a card tester with many sessions meets one limit. In the
  // database, not in a process, so instances that share it share the count; rows older than the window are pruned.
  await withId(db.schema.createTable('capture_address_failures'), t)
    .addColumn('client_address', 'text', (c) => c.notNull())
    .addColumn('failed_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('capture_address_failures_address')
    .on('capture_address_failures')
    .columns(['client_address', 'failed_at'])
    .execute();
}
