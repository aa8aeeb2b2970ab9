import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import { creditNoteChangesToRow, creditNoteFromRow, newCreditNoteToRow } from './creditNote.mapper.ts';
import type { CreditNoteChanges, CreditNoteRecord, NewCreditNote } from './creditNote.ts';

const CREDIT_NOTE_COLUMNS = [
  'id',
  'account_id',
  'customer_id',
  'currency_code',
  'amount_minor',
  'allocated_minor',
  'credit_date',
  'credit_number',
  'memo',
  'created_at',
  'updated_at',
] as const;

export async function findCreditNote(
  db: Db,
  accountId: number,
  creditNoteId: number,
): Promise<CreditNoteRecord | undefined> {
  const row = await db
    .selectFrom('credit_notes')
    .select(CREDIT_NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', creditNoteId)
    .executeTakeFirst();
  return row && creditNoteFromRow(row);
}

export async function findCreditNotes(
  db: Db,
  accountId: number,
  creditNoteIds: readonly number[],
): Promise<CreditNoteRecord[]> {
  if (creditNoteIds.length === 0) return [];
  const rows = await db
    .selectFrom('credit_notes')
    .select(CREDIT_NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', creditNoteIds)
    .orderBy('id')
    .execute();
  return rows.map(creditNoteFromRow);
}

export async function listCreditNotes(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<CreditNoteRecord[]> {
  const rows = await db
    .selectFrom('credit_notes')
    .select(CREDIT_NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(creditNoteFromRow);
}

export async function insertCreditNote(db: Db, creditNote: NewCreditNote): Promise<number> {
  return (
    await db
      .insertInto('credit_notes')
      .values(newCreditNoteToRow(creditNote))
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

export async function updateCreditNote(
  db: Db,
  accountId: number,
  creditNoteId: number,
  changes: CreditNoteChanges,
): Promise<void> {
  await db
    .updateTable('credit_notes')
    .set(creditNoteChangesToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', creditNoteId)
    .execute();
}

export async function deleteCreditNote(db: Db, accountId: number, creditNoteId: number): Promise<void> {
  await db
    .deleteFrom('credit_notes')
    .where('account_id', '=', accountId)
    .where('id', '=', creditNoteId)
    .execute();
}
