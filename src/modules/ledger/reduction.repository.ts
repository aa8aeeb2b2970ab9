import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { InvoiceReduction, NewReduction, ReductionSourceType } from './reduction.ts';
import type { Selectable } from 'kysely';
import type { InvoiceReductionsTable } from './tables.ts';
import { taxPartsFromColumn, taxPartsToColumn } from './reductionTaxParts.ts';

/** The invoice_reductions table (docs/tax.md, "The VAT in a reduction"): rows are only ever added. */

const COLUMNS = [
  'id',
  'customer_id',
  'invoice_id',
  'source_type',
  'source_id',
  'tax_credit_note_id',
  'amount_minor',
  'tax_minor',
  'tax_parts',
  'reduction_date',
] as const;

function reductionFromRow(
  row: Pick<Selectable<InvoiceReductionsTable>, (typeof COLUMNS)[number]>,
): InvoiceReduction {
  return {
    id: Number(row.id),
    customerId: Number(row.customer_id),
    invoiceId: Number(row.invoice_id),
    source: { type: row.source_type as ReductionSourceType, id: Number(row.source_id) },
    taxCreditNoteId: row.tax_credit_note_id === null ? null : Number(row.tax_credit_note_id),
    amountMinor: Number(row.amount_minor),
    taxMinor: Number(row.tax_minor),
    taxParts: taxPartsFromColumn(row.tax_parts),
    date: row.reduction_date,
  };
}

/** What the invoices have been reduced by so far, in all and by each source, with the VAT of it. */
export async function sumsOnInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<
  { invoiceId: number; sourceType: string; sourceId: number; amountMinor: number; taxMinor: number }[]
> {
  if (invoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('invoice_reductions')
    .select([
      'invoice_id',
      'source_type',
      'source_id',
      sql<number | string>`sum(amount_minor)`.as('amount_minor'),
      sql<number | string>`sum(tax_minor)`.as('tax_minor'),
    ])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', [...invoiceIds])
    .groupBy(['invoice_id', 'source_type', 'source_id'])
    .execute();
  return rows.map((row) => ({
    invoiceId: Number(row.invoice_id),
    sourceType: row.source_type,
    sourceId: Number(row.source_id),
    amountMinor: Number(row.amount_minor),
    taxMinor: Number(row.tax_minor),
  }));
}

export async function insertReductions(
  db: Db,
  accountId: number,
  reductions: readonly NewReduction[],
  now: string,
): Promise<void> {
  if (reductions.length === 0) return;
  await db
    .insertInto('invoice_reductions')
    .values(
      reductions.map((reduction) => ({
        account_id: accountId,
        customer_id: reduction.customerId,
        invoice_id: reduction.invoiceId,
        source_type: reduction.source.type,
        source_id: reduction.source.id,
        tax_credit_note_id: reduction.taxCreditNoteId,
        amount_minor: reduction.amountMinor,
        tax_minor: reduction.taxMinor,
        tax_parts: taxPartsToColumn(reduction.taxParts),
        reduction_date: reduction.date,
        created_at: now,
      })),
    )
    .execute();
}

/** The rows whose `column` is one of `values` (of one source type, for sources), in the order they were made. */
async function listBy(
  db: Db,
  accountId: number,
  column: 'invoice_id' | 'source_id' | 'tax_credit_note_id',
  values: readonly number[],
  sourceType?: ReductionSourceType,
): Promise<InvoiceReduction[]> {
  if (values.length === 0) return [];
  const rows = await db
    .selectFrom('invoice_reductions')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where(column, 'in', [...values])
    .$if(sourceType !== undefined, (qb) => qb.where('source_type', '=', sourceType!))
    .orderBy('id')
    .execute();
  return rows.map(reductionFromRow);
}

/** The rows of these invoices. */
export const listOnInvoices = (db: Db, accountId: number, invoiceIds: readonly number[]) =>
  listBy(db, accountId, 'invoice_id', invoiceIds);

/** The rows of these sources. */
export const listOfSources = (
  db: Db,
  accountId: number,
  sourceType: ReductionSourceType,
  sourceIds: readonly number[],
) => listBy(db, accountId, 'source_id', sourceIds, sourceType);

/** The rows documented by these tax credit notes (prepaid credit's). */
export const listOfTaxCreditNotes = (db: Db, accountId: number, taxCreditNoteIds: readonly number[]) =>
  listBy(db, accountId, 'tax_credit_note_id', taxCreditNoteIds);

/**
 * Prepaid credit's reductions no tax credit note documents (taken off as an invoice was issued, shown on it, or
 * given back), dated within [from, to], in date order then the order they were made.
 */
export async function listShownBetween(
  db: Db,
  accountId: number,
  from: string,
  to: string,
): Promise<InvoiceReduction[]> {
  const rows = await db
    .selectFrom('invoice_reductions')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('source_type', '=', 'credit_grant')
    .where('tax_credit_note_id', 'is', null)
    .where('reduction_date', '>=', from)
    .where('reduction_date', '<=', to)
    .orderBy('reduction_date')
    .orderBy('id')
    .execute();
  return rows.map(reductionFromRow);
}

/**
 * The reductions a tax credit note documents (a credit note's, an adjustment's, prepaid credit's after an invoice's
 * issue), dated within [from, to], in date order then the order they were made.
 */
export async function listDocumentedBetween(
  db: Db,
  accountId: number,
  from: string,
  to: string,
): Promise<InvoiceReduction[]> {
  const rows = await db
    .selectFrom('invoice_reductions')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('source_type', '!=', 'credit_grant'), eb('tax_credit_note_id', 'is not', null)]))
    .where('reduction_date', '>=', from)
    .where('reduction_date', '<=', to)
    .orderBy('reduction_date')
    .orderBy('id')
    .execute();
  return rows.map(reductionFromRow);
}

/** These rows dated `date`. */
export async function redate(db: Db, accountId: number, ids: readonly number[], date: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('invoice_reductions')
    .set({ reduction_date: date })
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
}
