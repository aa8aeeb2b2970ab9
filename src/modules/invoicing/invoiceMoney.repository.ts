import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import { INVOICE_MONEY_FIGURES, type InvoiceMoneyColumn } from './invoice.repository.ts';
import type { InvoiceMoneyFigures } from './invoice.ts';
import { invoiceMoneyFiguresFromRow } from './invoice.mapper.ts';

/** The ledger's batch access to invoices' money figures (invoice.repository.ts holds the one-invoice change). */

const INVOICE_MONEY_AFTER = ['id', ...INVOICE_MONEY_FIGURES] as const;

function addedToInvoicesMoney(column: InvoiceMoneyColumn) {
  return preparedQuery((db, accountId: number, invoiceIds: number[], deltasMinor: number[], now: string) =>
    db
      .updateTable('invoices')
      .set({
        // NOTE: PostgreSQL cannot type a CASE whose branches are all parameters: each delta is cast to bigint.
        [column]: sql<number>`${sql.ref(column)} + case ${sql.ref('id')} ${sql.join(
          invoiceIds.map((id, i) => sql`when ${id} then cast(${deltasMinor[i]} as bigint)`),
          sql` `,
        )} end`,
        updated_at: now,
      })
      .where('account_id', '=', accountId)
      .where('id', 'in', invoiceIds)
      .returning(INVOICE_MONEY_AFTER),
  );
}
const byColumn = {
  paid_actual_minor: addedToInvoicesMoney('paid_actual_minor'),
  paid_pending_minor: addedToInvoicesMoney('paid_pending_minor'),
  negative_adjs_minor: addedToInvoicesMoney('negative_adjs_minor'),
};

/**
 * addToInvoiceMoney for many invoices in one statement (each id once), compiled once per number of invoices;
 * returns each invoice's figures after the change, in no particular order.
 */
export async function addToInvoicesMoneyColumn(
  db: Db,
  accountId: number,
  column: InvoiceMoneyColumn,
  changes: readonly { invoiceId: number; deltaMinor: number }[],
  now: string,
): Promise<(InvoiceMoneyFigures & { id: number })[]> {
  const rows = await byColumn[column](
    db,
    accountId,
    changes.map((change) => change.invoiceId),
    changes.map((change) => change.deltaMinor),
    now,
  );
  return rows.map((row) => ({ id: row.id, ...invoiceMoneyFiguresFromRow(row) }));
}

/** Each invoice's Total, the taxes in it (Σ over its lines of AmountInc − AmountEx), its date and whether cancelled. */
export async function taxedTotalsOf(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<
  { id: number; totalMinor: number; taxMinor: number; invoiceDate: string; isCancelled: boolean }[]
> {
  if (invoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('invoices')
    .leftJoin('invoice_charges', 'invoice_charges.invoice_id', 'invoices.id')
    .select([
      'invoices.id as id',
      'invoices.total_minor as total_minor',
      'invoices.invoice_date as invoice_date',
      'invoices.is_cancelled as is_cancelled',
      sql<
        number | string
      >`coalesce(sum(invoice_charges.amount_inc_minor - invoice_charges.amount_ex_minor), 0)`.as('tax_minor'),
    ])
    .where('invoices.account_id', '=', accountId)
    .where('invoices.id', 'in', [...invoiceIds])
    .groupBy(['invoices.id', 'invoices.total_minor', 'invoices.invoice_date', 'invoices.is_cancelled'])
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    totalMinor: Number(row.total_minor),
    taxMinor: Number(row.tax_minor),
    invoiceDate: row.invoice_date,
    isCancelled: Boolean(row.is_cancelled),
  }));
}
