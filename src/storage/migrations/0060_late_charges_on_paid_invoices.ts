import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // What becomes of a charge taken in a provider's popup that arrives for an invoice already paid another way:
  // refund (through the provider, the default) or credit (kept as the customer's unapplied credit, as before)
  // (docs/hosted-pages.md, "When the browser never comes back").
  await db.schema
    .alterTable('accounts')
    .addColumn('late_charges_on_paid_invoices', 'text', (c) => c.notNull().defaultTo('refund'))
    .execute();
}
