import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // accounts.catalogue_revision: moved on by every write to the account's packages or components, in the write's
  // transaction, so that a process keeping rendered catalogue pages can tell at once whether one still holds
  // (docs/architecture.md, "Catalogue pages kept in the process").
  await db.schema
    .alterTable('accounts')
    .addColumn('catalogue_revision', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
