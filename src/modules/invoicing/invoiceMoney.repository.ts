import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import { INVOICE_MONEY_FIGURES, type InvoiceMoneyColumn } from './invoice.repository.ts';
import type { InvoiceMoneyFigures } from './invoice.ts';
import { invoiceMoneyFiguresFromRow, taxPositionsFromColumn } from './invoice.mapper.ts';

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

/** An invoice's Total with the taxes in it, and what a VAT report needs to place it (taxedTotalsOf). */
export interface TaxedTotalRow {
  id: number;
  invoiceNum: number | null;
  customerId: number;
  currencyCode: string;
  invoiceDate: string;
  isDraft: boolean;
  isCancelled: boolean;
  totalMinor: number;
  /** Σ over its lines of AmountInc − AmountEx. */
  taxMinor: number;
  taxes: { name: string; perc: string }[];
  /**
   * Set only on an invoice whose lines bear different taxes (a period cut at a change of rate, docs/tax.md
   * "Supplies that span a change"): its lines summed by the taxes they bear, each with those taxes.
   */
  byRate?: RatePart[];
}

/** The lines of an invoice that bear the same taxes: their AmountInc and taxes summed. */
export interface RatePart {
  taxes: { name: string; perc: string }[];
  /** Their positions in the invoice's taxes. */
  positions: number[];
  totalMinor: number;
  taxMinor: number;
}

/** The invoices with these ids, or (ids undefined) issued within [from, to], with their Totals and taxes. */
export async function taxedTotalsOf(
  db: Db,
  accountId: number,
  select: { ids: readonly number[] } | { from: string; to: string },
): Promise<TaxedTotalRow[]> {
  if ('ids' in select && select.ids.length === 0) return [];
  const rows = await db
    .selectFrom('invoices')
    .leftJoin('invoice_charges', 'invoice_charges.invoice_id', 'invoices.id')
    .select([
      'invoices.id as id',
      'invoices.invoice_num as invoice_num',
      'invoices.customer_id as customer_id',
      'invoices.currency_code as currency_code',
      'invoices.invoice_date as invoice_date',
      'invoices.is_draft as is_draft',
      'invoices.is_cancelled as is_cancelled',
      'invoices.total_minor as total_minor',
      sql<
        number | string
      >`coalesce(sum(invoice_charges.amount_inc_minor - invoice_charges.amount_ex_minor), 0)`.as('tax_minor'),
    ])
    .where('invoices.account_id', '=', accountId)
    .$if('ids' in select, (qb) => qb.where('invoices.id', 'in', [...(select as { ids: number[] }).ids]))
    .$if(!('ids' in select), (qb) =>
      qb
        .where('invoices.invoice_date', '>=', (select as { from: string }).from)
        .where('invoices.invoice_date', '<=', (select as { to: string }).to)
        .where('invoices.is_draft', '=', false),
    )
    .groupBy([
      'invoices.id',
      'invoices.invoice_num',
      'invoices.customer_id',
      'invoices.currency_code',
      'invoices.invoice_date',
      'invoices.is_draft',
      'invoices.is_cancelled',
      'invoices.total_minor',
    ])
    .orderBy('invoices.invoice_date')
    .orderBy('invoices.id')
    .execute();
  const taxes = new Map<number, { name: string; perc: string }[]>();
  const ids = rows.map((row) => Number(row.id));
  for (let i = 0; i < ids.length; i += 500) {
    const taxRows = await db
      .selectFrom('invoice_taxes')
      .select(['invoice_id', 'name', 'perc'])
      .where('account_id', '=', accountId)
      .where('invoice_id', 'in', ids.slice(i, i + 500))
      .orderBy('id')
      .execute();
    for (const tax of taxRows)
      taxes.set(Number(tax.invoice_id), [
        ...(taxes.get(Number(tax.invoice_id)) ?? []),
        { name: tax.name, perc: String(tax.perc) },
      ]);
  }
  const mixed = await ratePartsOf(db, accountId, ids, taxes);
  return rows.map((row) => ({
    id: Number(row.id),
    invoiceNum: row.invoice_num === null ? null : Number(row.invoice_num),
    customerId: Number(row.customer_id),
    currencyCode: row.currency_code,
    invoiceDate: row.invoice_date,
    isDraft: Boolean(row.is_draft),
    isCancelled: Boolean(row.is_cancelled),
    totalMinor: Number(row.total_minor),
    taxMinor: Number(row.tax_minor),
    taxes: taxes.get(Number(row.id)) ?? [],
    ...(mixed.has(Number(row.id)) ? { byRate: mixed.get(Number(row.id))! } : {}),
  }));
}

/** The invoices among `ids` with a line bearing only some of their taxes, their lines summed by the taxes borne. */
async function ratePartsOf(
  db: Db,
  accountId: number,
  ids: readonly number[],
  taxes: ReadonlyMap<number, { name: string; perc: string }[]>,
): Promise<Map<number, RatePart[]>> {
  const parts = new Map<number, Map<string, RatePart>>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db
      .selectFrom('invoice_charges')
      .select(['invoice_id', 'tax_positions', 'amount_ex_minor', 'amount_inc_minor'])
      .where('account_id', '=', accountId)
      .where('invoice_id', 'in', (qb) =>
        qb
          .selectFrom('invoice_charges')
          .select('invoice_id')
          .where('account_id', '=', accountId)
          .where('invoice_id', 'in', chunk)
          .where('tax_positions', 'is not', null),
      )
      .orderBy('id')
      .execute();
    for (const row of rows) {
      const invoiceId = Number(row.invoice_id);
      const all = taxes.get(invoiceId) ?? [];
      const positions = taxPositionsFromColumn(row.tax_positions) ?? all.map((_tax, p) => p);
      const byKey = parts.get(invoiceId) ?? new Map<string, RatePart>();
      const part = byKey.get(positions.join(',')) ?? {
        taxes: positions.flatMap((p) => (all[p] ? [all[p]] : [])),
        positions,
        totalMinor: 0,
        taxMinor: 0,
      };
      part.totalMinor += Number(row.amount_inc_minor);
      part.taxMinor += Number(row.amount_inc_minor) - Number(row.amount_ex_minor);
      byKey.set(positions.join(','), part);
      parts.set(invoiceId, byKey);
    }
  }
  return new Map([...parts].map(([id, byKey]) => [id, [...byKey.values()]]));
}
