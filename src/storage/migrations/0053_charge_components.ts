import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The component an invoice line bills (its usage, recorded or read from events), so that a credit grant can be
  // restricted to components (docs/credits.md, "Grants"). Lines made before, and lines typed by hand, name none.
  await db.schema.alterTable('invoice_charges').addColumn('component_id', 'bigint').execute();
}
