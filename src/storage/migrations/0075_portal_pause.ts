import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/** Pausing in the portal (docs/portal.md, "Pausing"). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // Whether contacts may pause their own subscriptions (off by default), for how long at most and how often.
  await db.schema
    .alterTable('accounts')
    .addColumn('portal_pause', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('max_pause_days', 'integer', (c) => c.notNull().defaultTo(90))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('max_pauses_per_year', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();

  // The pauses customers made themselves (the portal's pause form, a retention offer taken): what MaxPausesPerYear
  // counts. The subscription keeps only its last pause.
  await withId(db.schema.createTable('subscription_self_pauses'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    // portal | retention
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('pause_date', t.date, (c) => c.notNull())
    .addColumn('resume_date', t.date, (c) => c.notNull())
    // The account's calendar day the pause was made: the last 365 days are counted by it.
    .addColumn('made_on', t.date, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscription_self_pauses_subscription')
    .on('subscription_self_pauses')
    .columns(['account_id', 'subscription_id', 'made_on'])
    .execute();
}
