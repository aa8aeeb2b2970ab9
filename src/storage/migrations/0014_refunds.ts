import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // A refund may take money that paid invoices (docs/gateways.md, "Refunds"): what the caller chose for them
  // (`credit` or `reopen`; null for an attempt made before the choice existed, which took only unallocated money)
  // and the credit note issued with it, kept so that a refusal from the gateway can undo exactly that.
  // One column a statement: SQLite adds one at a time.
  await db.schema.alterTable('refund_attempts').addColumn('paid_invoices', 'text').execute();
  await db.schema.alterTable('refund_attempts').addColumn('credit_note_id', 'bigint').execute();

  // What the refund took from each invoice the payment paid, given back to it when the gateway refuses.
  await db.schema
    .createTable('refund_attempt_invoices')
    .addColumn('refund_attempt_id', 'bigint', (c) =>
      c.notNull().references('refund_attempts.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('refund_attempt_invoices_pk', ['refund_attempt_id', 'invoice_id'])
    .execute();
}
