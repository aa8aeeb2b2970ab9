import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A sale made for an invoice's balance (the customer portal's "Pay with a new card") charges at most what the
  // invoice still owes when the card is submitted, not the balance the page was made with. Sessions made before
  // this keep their Amount.
  await db.schema
    .alterTable('capture_sessions')
    .addColumn('up_to_owed', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
}
