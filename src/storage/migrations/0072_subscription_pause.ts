import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * A subscription's pause (docs/subscriptions.md, "Pause and resume"): billing stops from `pause_date` until
 * `resume_date` (null: until resumed), the period already invoiced kept or credited by `pause_credit` (none,
 * prorata); the resume starts a new cycle on its day or keeps the old one by `resume_billing_anchor` (resume_day,
 * unchanged). All null for a subscription never paused.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('subscriptions').addColumn('pause_date', t.date).execute();
  await db.schema.alterTable('subscriptions').addColumn('resume_date', t.date).execute();
  await db.schema.alterTable('subscriptions').addColumn('pause_credit', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('resume_billing_anchor', 'text').execute();
  // Customers told of their pauses (pause confirmed, resuming soon, resumed), on by default like the other notices.
  await db.schema
    .alterTable('accounts')
    .addColumn('send_pause_notices', t.bool, (c) => c.notNull().defaultTo(t.isPostgres ? true : 1))
    .execute();
}
