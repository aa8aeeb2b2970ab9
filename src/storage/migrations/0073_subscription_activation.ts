import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * Subscriptions that start when paid (docs/subscriptions.md, "Subscriptions that start when paid"): a subscription
 * created with ActivateOnPayment is incomplete from its creation until its first invoice is paid (`activated_on`,
 * the day it was) or `incomplete_until` came unpaid (`incomplete_expired_on`, the day the bill run expired it).
 * Calendar dates in the account's time zone; all three null for every other subscription.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('subscriptions').addColumn('incomplete_until', t.date).execute();
  await db.schema.alterTable('subscriptions').addColumn('activated_on', t.date).execute();
  await db.schema.alterTable('subscriptions').addColumn('incomplete_expired_on', t.date).execute();
  // The bill run's expiry step reads the incomplete subscriptions of an account: few, so a partial index would do,
  // but SQLite and PostgreSQL spell those differently; this one serves both.
  await db.schema
    .createIndex('subscriptions_incomplete_until')
    .on('subscriptions')
    .columns(['account_id', 'incomplete_until'])
    .execute();
}
