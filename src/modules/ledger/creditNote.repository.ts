import { sql } from 'kysely';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { CreditNotesTable } from './tables.ts';

export type CreditNoteRow = Selectable<CreditNotesTable>;
export type NewCreditNoteRow = Insertable<CreditNotesTable>;
export type CreditNoteChanges = Updateable<
  Omit<CreditNotesTable, 'id' | 'account_id' | 'customer_id' | 'allocated_minor' | 'created_at'>
>;

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

export function findCreditNote(
  db: Db,
  accountId: number,
  creditNoteId: number,
): Promise<CreditNoteRow | undefined> {
  return db
    .selectFrom('credit_notes')
    .select(CREDIT_NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', creditNoteId)
    .executeTakeFirst();
}

export function findCreditNotes(
  db: Db,
  accountId: number,
  creditNoteIds: readonly number[],
): Promise<CreditNoteRow[]> {
  if (creditNoteIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('credit_notes')
    .select(CREDIT_NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', creditNoteIds)
    .orderBy('id')
    .execute();
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

export function listCreditNotes(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<CreditNoteRow[]> {
  return db
    .selectFrom('credit_notes')
    .select(CREDIT_NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function insertCreditNote(db: Db, row: NewCreditNoteRow): Promise<number> {
  return (await db.insertInto('credit_notes').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

export async function updateCreditNote(
  db: Db,
  accountId: number,
  creditNoteId: number,
  changes: CreditNoteChanges,
): Promise<void> {
  await db
    .updateTable('credit_notes')
    .set(changes)
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
