import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A debit settled before its rail's return window passed (a Netcash statement's collection, a pain.002's ACSC, a
  // result by hand) has its receipt sent on this business date, once the window has passed and if it was not
  // returned meanwhile; null when no receipt waits (docs/gateways.md, "Receipts after the return window"). Lines
  // settled before this migration had their receipts.
  await db.schema.alterTable('batch_lines').addColumn('receipt_due_on', t.date).execute();
  await db.schema
    .createIndex('batch_lines_receipt_due')
    .on('batch_lines')
    .columns(['account_id', 'receipt_due_on'])
    .execute();
}
