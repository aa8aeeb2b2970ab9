import type { Kysely } from 'kysely';
import { sql } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/** Each counter's new table, its column, and the accounts column it came from. */
const COUNTERS = [
  // Invoicing's invoice numbers (0001).
  { table: 'invoice_numbers', column: 'last_num', from: 'last_invoice_num' },
  // The ledger's credit note numbers (0015).
  { table: 'credit_note_numbers', column: 'last_num', from: 'last_credit_num' },
  // The catalogue's revision (0031; docs/architecture.md, "Catalogue pages kept in the process").
  { table: 'catalogue_revisions', column: 'revision', from: 'catalogue_revision' },
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The account's counters move from auth's accounts row to a table of each counter's owner, keyed by the account
  // (docs/architecture.md, "Tables and their owners"). An account without a row counts from 0: its owner's first
  // take inserts the row. Every account gets its row here, with its current value, so no number repeats.
  for (const { table, column, from } of COUNTERS) {
    await db.schema
      .createTable(table)
      .addColumn('account_id', 'bigint', (c) =>
        c.primaryKey().notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db
      .insertInto(table)
      .columns(['account_id', column])
      .expression((eb) => eb.selectFrom('accounts').select(['id', sql.ref(from).as(column)]))
      .execute();
    // NOTE: SQLite drops a column (3.35 and later) when nothing but the table names it, as here.
    await db.schema.alterTable('accounts').dropColumn(from).execute();
  }
}
