import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // The reminders sent for invoices the customer pays itself (docs/gateways.md, "The collection loop"): one row per
  // invoice and day of the schedule (days relative to the due date). The unique key makes each reminder once, even
  // when the bill run repeats a day or two processes run it at once: the one whose insert lands sends it.
  await withId(db.schema.createTable('invoice_reminders'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('invoice_id', 'bigint', (c) => c.notNull())
    .addColumn('day_offset', 'integer', (c) => c.notNull())
    .addColumn('sent_on', t.date, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('invoice_reminders_once', ['account_id', 'invoice_id', 'day_offset'])
    .execute();
}
