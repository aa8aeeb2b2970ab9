import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The live account a test account was made live as (docs/going-live.md, "Making the live account"): set once, in
  // the transaction that made it, so that a second go-live of the same test account is refused and names it.
  await db.schema
    .alterTable('accounts')
    .addColumn('live_account_id', 'integer', (col) => col.references('accounts.id'))
    .execute();
}
