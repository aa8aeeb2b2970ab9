import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The name every e-mail of the account comes from, and where customers' answers go (docs/operations.md,
  // "E-mail"): null for the default name (the legal name, else the account's) and no Reply-To.
  // NOTE: SQLite adds one column per ALTER TABLE statement.
  await db.schema.alterTable('accounts').addColumn('sender_name', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('reply_to', 'text').execute();
  // Below this (minor units of the account's currency) an invoice past due is a small leftover the staff are
  // told of at once (docs/gateways.md, "Small leftovers"); null: none is.
  await db.schema.alterTable('accounts').addColumn('small_invoice_minor', 'bigint').execute();
}
