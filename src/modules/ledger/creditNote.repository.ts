import { sql } from 'kysely';
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

/**
 * Takes the next number of the account's credit note sequence. The upsert holds the account's counter row until
 * the transaction ends (PostgreSQL: a second taker of a row still being inserted waits for it too), so concurrent
 * creations queue here and get consecutive numbers; a rollback gives the number back. An account's first take
 * makes its row, numbering from 1.
 */
export async function takeCreditNumber(db: Db, accountId: number): Promise<number> {
  const row = await db
    .insertInto('credit_note_numbers')
    .values({ account_id: accountId, last_num: 1 })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({ last_num: sql<number>`credit_note_numbers.last_num + 1` }),
    )
    .returning('last_num')
    .executeTakeFirstOrThrow();
  return Number(row.last_num);
}

/** The credit note holding a CreditNumber in the account (unique per account), if any. */
export function findCreditNoteIdByNumber(
  db: Db,
  accountId: number,
  creditNumber: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('credit_notes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('credit_number', '=', creditNumber)
    .executeTakeFirst();
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
