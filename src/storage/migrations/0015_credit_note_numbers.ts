import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The account's credit note sequence, as last_invoice_num is its invoices': the last number given to a credit
  // note created without a CreditNumber (docs/spec-decisions.md, "Credit notes"). Taken by an UPDATE on the
  // account row, so concurrent creations queue on the row and get consecutive numbers.
  await db.schema
    .alterTable('accounts')
    .addColumn('last_credit_num', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
