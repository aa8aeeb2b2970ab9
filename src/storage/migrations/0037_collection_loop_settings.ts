import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // What the collection loop does on its own (docs/gateways.md, "The collection loop"): the customer e-mails, each on
  // by default; credit applied before collecting, on by default; batches submitted without a person, off by default.
  for (const column of [
    'send_payment_receipts',
    'send_payment_failed_emails',
    'send_invoice_reminders',
    'apply_credit_first',
  ]) {
    await db.schema
      .alterTable('accounts')
      .addColumn(column, t.bool, (c) => c.notNull().defaultTo(true))
      .execute();
  }
  await db.schema
    .alterTable('accounts')
    .addColumn('auto_submit_batches', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
  // JSON array of days relative to the due date; null: the default schedule.
  await db.schema.alterTable('accounts').addColumn('invoice_reminder_days', 'text').execute();
  // Where notices to the account's own staff go; null: the seller's ContactEmail.
  await db.schema.alterTable('accounts').addColumn('staff_email', 'text').execute();
}
