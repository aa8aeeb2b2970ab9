import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { TaxCreditNotesTable } from './tables.ts';
import type { NewTaxCreditNoteRecord, TaxCreditNoteRecord } from './taxCreditNote.ts';

/** The tax_credit_notes table: tax credit notes that are not credit notes of /v1/credits (docs/tax.md). */

const COLUMNS = [
  'id',
  'customer_id',
  'currency_code',
  'source_type',
  'source_id',
  'credit_number',
  'issue_date',
  'reason',
  'created_at',
] as const;

function fromRow(row: Pick<Selectable<TaxCreditNotesTable>, (typeof COLUMNS)[number]>): TaxCreditNoteRecord {
  return {
    id: Number(row.id),
    customerId: Number(row.customer_id),
    currencyCode: row.currency_code,
    source: { type: row.source_type as TaxCreditNoteRecord['source']['type'], id: Number(row.source_id) },
    creditNumber: row.credit_number,
    date: row.issue_date,
    reason: row.reason,
    createdAt: row.created_at,
  };
}

export async function insertTaxCreditNote(
  db: Db,
  accountId: number,
  note: NewTaxCreditNoteRecord,
  now: string,
): Promise<number> {
  const row = await db
    .insertInto('tax_credit_notes')
    .values({
      account_id: accountId,
      customer_id: note.customerId,
      currency_code: note.currencyCode,
      source_type: note.source.type,
      source_id: note.source.id,
      credit_number: note.creditNumber,
      issue_date: note.date,
      reason: note.reason,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findByIds(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<TaxCreditNoteRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('tax_credit_notes')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
  return rows.map(fromRow);
}

/** The documents of these sources (credit notes, adjustments, or the invoices prepaid credit reduced). */
export async function findOfSources(
  db: Db,
  accountId: number,
  sourceType: TaxCreditNoteRecord['source']['type'],
  sourceIds: readonly number[],
): Promise<TaxCreditNoteRecord[]> {
  if (sourceIds.length === 0) return [];
  const rows = await db
    .selectFrom('tax_credit_notes')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('source_type', '=', sourceType)
    .where('source_id', 'in', [...sourceIds])
    .orderBy('id')
    .execute();
  return rows.map(fromRow);
}

export function findIdByNumber(
  db: Db,
  accountId: number,
  creditNumber: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('tax_credit_notes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('credit_number', '=', creditNumber)
    .executeTakeFirst();
}

/** The account's documents, optionally of one customer and within dates, in the order they were made. */
export async function listTaxCreditNotes(
  db: Db,
  accountId: number,
  filter: { customerId?: number; from?: string; to?: string },
  page?: Page,
): Promise<TaxCreditNoteRecord[]> {
  const rows = await db
    .selectFrom('tax_credit_notes')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .$if(filter.customerId !== undefined, (qb) => qb.where('customer_id', '=', filter.customerId!))
    .$if(filter.from !== undefined, (qb) => qb.where('issue_date', '>=', filter.from!))
    .$if(filter.to !== undefined, (qb) => qb.where('issue_date', '<=', filter.to!))
    .orderBy('id')
    .$if(page !== undefined, (qb) => qb.limit(page!.limit).offset(page!.offset))
    .execute();
  return rows.map(fromRow);
}

/** A credit note's or an adjustment's document follows its number and date. */
export async function renumber(
  db: Db,
  accountId: number,
  id: number,
  changes: { creditNumber: string; date: string; reason: string },
): Promise<void> {
  await db
    .updateTable('tax_credit_notes')
    .set({ credit_number: changes.creditNumber, issue_date: changes.date, reason: changes.reason })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** A deleted credit note's or adjustment's document goes with it. */
export async function deleteOfSource(
  db: Db,
  accountId: number,
  source: { type: TaxCreditNoteRecord['source']['type']; id: number },
): Promise<void> {
  await db
    .deleteFrom('tax_credit_notes')
    .where('account_id', '=', accountId)
    .where('source_type', '=', source.type)
    .where('source_id', '=', source.id)
    .execute();
}

/** The Amount of these credit notes or adjustments (the documents' sources), by id. */
export async function amountsOfSources(
  db: Db,
  accountId: number,
  kind: 'credit_note' | 'adjustment',
  ids: readonly number[],
): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom(kind === 'credit_note' ? 'credit_notes' : 'adjustments')
    .select(['id', 'amount_minor'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [Number(row.id), Number(row.amount_minor)]));
}
