import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // The debit mandate a SEPA bank account is collected under, as the business holds it on paper until eMandates
  // exist: its unique reference and the day the debtor signed it, written into each pain.008 line
  // (docs/gateways.md, "The bankfile gateway"). Null for every bank account until then.
  // One column a statement: SQLite adds one at a time.
  await db.schema.alterTable('payment_methods').addColumn('mandate_reference', 'text').execute();
  await db.schema.alterTable('payment_methods').addColumn('mandate_signed_on', t.date).execute();
}
