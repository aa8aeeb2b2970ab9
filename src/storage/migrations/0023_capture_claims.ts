import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // A submit's claim on a capture session gets an identity (docs/design/hosted-pages.md, "One submit at a time"):
  // the random id the claim wrote, which every write that ends or releases it must still find; null while no
  // submit holds the session. And how many times a claim that ran out was taken over, which keeps the charge of a
  // submit that outlived its claim apart from the charge of the submit that took its place.
  await db.schema.alterTable('capture_sessions').addColumn('claim_id', 'text').execute();
  await db.schema
    .alterTable('capture_sessions')
    .addColumn('claim_takeovers', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
