import type { Db } from '../../storage/database.ts';

/** The reminders' queries (migration 0038); the invoices they are for are read through invoicing's index.ts. */

/** Of these invoices, those whose reminder of the schedule's day `dayOffset` or a later one was sent: one statement. */
export async function listInvoicesRemindedFrom(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
  dayOffset: number,
): Promise<Set<number>> {
  if (invoiceIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('invoice_reminders')
    .select('invoice_id')
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .where('day_offset', '>=', dayOffset)
    .execute();
  return new Set(rows.map((row) => Number(row.invoice_id)));
}

/** The day offsets of the schedule already sent for the invoice. */
export async function listSentOffsets(db: Db, accountId: number, invoiceId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('invoice_reminders')
    .select('day_offset')
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .execute();
  return rows.map((row) => Number(row.day_offset));
}

/**
 * Claims the reminder of the invoice for the day offset: true when this call inserted it, false when it was sent
 * already (by an earlier run, or another process now: the unique key decides).
 */
export async function claimReminder(
  db: Db,
  row: { accountId: number; invoiceId: number; dayOffset: number; sentOn: string; createdAt: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('invoice_reminders')
    .values({
      account_id: row.accountId,
      invoice_id: row.invoiceId,
      day_offset: row.dayOffset,
      sent_on: row.sentOn,
      created_at: row.createdAt,
    })
    .onConflict((oc) => oc.columns(['account_id', 'invoice_id', 'day_offset']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}
