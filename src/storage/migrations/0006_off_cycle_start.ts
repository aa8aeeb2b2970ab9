import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // The day a change made now kept the billing anchor: the period starting that day, off the cycle, is a stub to
  // the cycle's next boundary (src/core/subscriptionBilling.ts). Null for every subscription until then.
  await db.schema.alterTable('subscriptions').addColumn('off_cycle_start', t.date).execute();
}
