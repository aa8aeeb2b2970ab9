import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * A resume that waits for its invoice to be paid (docs/subscriptions.md, "Resuming when paid"): `resume_pay_by` is
 * the day the resumption invoice is voided if still unpaid (null: the resume does not wait), `resume_paid_on` the
 * day a payment made it Paid, the day the subscription really resumed. Calendar dates in the account's time zone;
 * both null for every other subscription.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('subscriptions').addColumn('resume_pay_by', t.date).execute();
  await db.schema.alterTable('subscriptions').addColumn('resume_paid_on', t.date).execute();
}
