import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { CustomerNotesTable } from './tables.ts';
import type { Note } from './customer.ts';

type NoteRow = Omit<Selectable<CustomerNotesTable>, 'account_id'>;

const NOTE_COLUMNS = ['id', 'customer_id', 'note', 'note_type', 'created_at'] as const;

function noteFromRow(row: NoteRow): Note {
  return {
    id: row.id,
    customerId: row.customer_id,
    note: row.note,
    noteType: row.note_type,
    createdAt: row.created_at,
  };
}

export async function findNote(db: Db, accountId: number, noteId: number): Promise<Note | undefined> {
  const row = await db
    .selectFrom('customer_notes')
    .select(NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', noteId)
    .executeTakeFirst();
  return row && noteFromRow(row);
}

export async function findNotes(db: Db, accountId: number, noteIds: readonly number[]): Promise<Note[]> {
  if (noteIds.length === 0) return [];
  const rows = await db
    .selectFrom('customer_notes')
    .select(NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...noteIds])
    .orderBy('id')
    .execute();
  return rows.map(noteFromRow);
}

export async function noteIdsOfCustomer(db: Db, accountId: number, customerId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('customer_notes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

export async function listNotes(db: Db, accountId: number, page: Page, customerId?: number): Promise<Note[]> {
  const rows = await db
    .selectFrom('customer_notes')
    .select(NOTE_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(noteFromRow);
}

export async function insertNote(db: Db, row: Insertable<CustomerNotesTable>): Promise<number> {
  const inserted = await db
    .insertInto('customer_notes')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateNote(
  db: Db,
  accountId: number,
  noteId: number,
  changes: { customer_id: number; note: string; note_type: string },
): Promise<boolean> {
  const result = await db
    .updateTable('customer_notes')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', noteId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteNote(db: Db, accountId: number, noteId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('customer_notes')
    .where('account_id', '=', accountId)
    .where('id', '=', noteId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
