import { sql } from 'kysely';
import type { ExpressionBuilder, Insertable, Updateable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Page } from '../../core/paging.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Database } from '../../storage/schema.ts';
import type { InvoiceChargesTable, InvoiceTaxesTable, InvoicesTable } from './tables.ts';
import type {
  AllocatableInvoiceRecord,
  InvoiceCharge,
  InvoiceMoneyFigures,
  InvoiceRecord,
  InvoiceTaxRecord,
  IssuedInvoiceRecord,
} from './invoice.ts';
import {
  allocatableInvoiceFromRow,
  invoiceChargeFromRow,
  invoiceMoneyFiguresFromRow,
  invoiceRecordFromRow,
  invoiceTaxFromRow,
  issuedInvoiceFromRow,
} from './invoice.mapper.ts';

export type NewInvoiceRow = Insertable<InvoicesTable>;
export type InvoiceChanges = Updateable<Omit<InvoicesTable, 'id' | 'account_id' | 'created_at'>>;

/** Issued, not cancelled, and not yet covered by what was paid (settled or pending) or credited. */
export function owed(eb: ExpressionBuilder<Database, 'invoices'>) {
  return eb.and([
    eb('is_draft', '=', false),
    eb('is_cancelled', '=', false),
    eb(
      'total_minor',
      '>',
      eb('paid_actual_minor', '+', eb('paid_pending_minor', '+', eb.ref('negative_adjs_minor'))),
    ),
  ]);
}
export type NewChargeRow = Insertable<InvoiceChargesTable>;
export type NewTaxRow = Insertable<InvoiceTaxesTable>;

const INVOICE_COLUMNS = [
  'id',
  'account_id',
  'customer_id',
  'invoice_num',
  'reference',
  'po_number',
  'currency_code',
  'invoice_date',
  'due_date',
  'date_sent',
  'is_draft',
  'is_cancelled',
  'cancelled_at',
  'source',
  'collection_method',
  'gateway_id',
  'customer_payment_method_id',
  'collection_problem',
  'num_tries',
  'next_try_date',
  'notes',
  'terms',
  'total_minor',
  'paid_actual_minor',
  'paid_pending_minor',
  'negative_adjs_minor',
  'subscription_id',
  'recurring_invoice_id',
  'created_at',
  'updated_at',
] as const;

const CHARGE_COLUMNS = [
  'id',
  'account_id',
  'invoice_id',
  'line',
  'descrip',
  'qty',
  'unit_cost_ex',
  'is_tax_inclusive',
  'amount_ex_minor',
  'amount_inc_minor',
  'display_order',
  'period_start',
  'period_end',
  'metric_code',
  'usage_group',
  'usage_quantity',
  'component_id',
  'tax_positions',
] as const;

const TAX_COLUMNS = ['id', 'account_id', 'invoice_id', 'name', 'perc'] as const;

// Rows per multi-row INSERT, so that parameters (columns × rows) stay well below SQLite's 32 766 and
// PostgreSQL's 65 535 per statement.
const INVOICE_CHUNK = 500;
const CHARGE_CHUNK = 1500;
const TAX_CHUNK = 4000;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

const invoiceById = preparedQuery((db, accountId: number, invoiceId: number) =>
  db
    .selectFrom('invoices')
    .select(INVOICE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId),
);

export async function findInvoice(
  db: Db,
  accountId: number,
  invoiceId: number,
): Promise<InvoiceRecord | undefined> {
  const row = (await invoiceById(db, accountId, invoiceId))[0];
  return row && invoiceRecordFromRow(row);
}

const invoicesByIds = preparedQuery((db, accountId: number, invoiceIds: readonly number[]) =>
  db
    .selectFrom('invoices')
    .select(INVOICE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', invoiceIds)
    .orderBy('id'),
);

export async function findInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<InvoiceRecord[]> {
  if (invoiceIds.length === 0) return [];
  return (await invoicesByIds(db, accountId, invoiceIds)).map(invoiceRecordFromRow);
}

/** The invoiceNum of each of these invoices (null for a draft), by id; ids the account cannot see left out. */
export async function findInvoiceNumbers(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<Map<number, number | null>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('invoices')
    .select(['id', 'invoice_num'])
    .where('account_id', '=', accountId)
    .where('id', 'in', invoiceIds)
    .execute();
  return new Map(rows.map((row) => [row.id, row.invoice_num]));
}

export function findInvoiceIdByReference(
  db: Db,
  accountId: number,
  reference: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('invoices')
    .select('id')
    .where('account_id', '=', accountId)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export interface InvoiceFilter {
  customerId?: number;
  /** Inclusive bounds on the invoice date. */
  from?: PlainDate;
  to?: PlainDate;
}

export async function listInvoices(
  db: Db,
  accountId: number,
  page: Page,
  filter: InvoiceFilter,
): Promise<InvoiceRecord[]> {
  const rows = await db
    .selectFrom('invoices')
    .select(INVOICE_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(filter.customerId !== undefined, (qb) => qb.where('customer_id', '=', filter.customerId!))
    .$if(filter.from !== undefined, (qb) => qb.where('invoice_date', '>=', filter.from!))
    .$if(filter.to !== undefined, (qb) => qb.where('invoice_date', '<=', filter.to!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(invoiceRecordFromRow);
}

/** The lines of the invoices, in display order. */
const chargesOf = preparedQuery((db, accountId: number, invoiceIds: readonly number[]) =>
  db
    .selectFrom('invoice_charges')
    .select(CHARGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('invoice_id')
    .orderBy('display_order')
    .orderBy('id'),
);

export async function listCharges(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<InvoiceCharge[]> {
  if (invoiceIds.length === 0) return [];
  return (await chargesOf(db, accountId, invoiceIds)).map(invoiceChargeFromRow);
}

const taxesOf = preparedQuery((db, accountId: number, invoiceIds: readonly number[]) =>
  db
    .selectFrom('invoice_taxes')
    .select(TAX_COLUMNS)
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('invoice_id')
    .orderBy('id'),
);

export async function listTaxes(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<InvoiceTaxRecord[]> {
  if (invoiceIds.length === 0) return [];
  return (await taxesOf(db, accountId, invoiceIds)).map(invoiceTaxFromRow);
}

/**
 * Takes `count` invoice numbers from the account's counter and returns the last of them (the first is
 * last - count + 1). The upsert holds the account's counter row (PostgreSQL: a second taker of a row still being
 * inserted waits for it too) or the database's write lock (SQLite) until the transaction ends, so concurrent
 * takers queue and a rollback gives the numbers back: no gaps, no duplicates. An account's first take makes its
 * row, numbering from 1.
 */
export async function takeInvoiceNumbers(db: Db, accountId: number, count: number): Promise<number> {
  const row = await db
    .insertInto('invoice_numbers')
    .values({ account_id: accountId, last_num: count })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({ last_num: sql<number>`invoice_numbers.last_num + ${count}` }),
    )
    .returning('last_num')
    .executeTakeFirstOrThrow();
  return Number(row.last_num);
}

/**
 * Inserts the invoices with a few multi-row statements and returns their ids in the rows' order.
 * NOTE: RETURNING does not promise the rows' order on either dialect, but both assign identity values to a
 * VALUES list in its order, so the ids sorted ascending are the rows' ids in order. The invoice numbers that
 * come back check that pairing: a mismatch throws (and rolls the transaction back) rather than misfile lines.
 */
export async function insertInvoiceRows(db: Db, rows: readonly NewInvoiceRow[]): Promise<number[]> {
  const ids: number[] = [];
  for (const chunk of chunks(rows, INVOICE_CHUNK)) {
    const inserted = await db.insertInto('invoices').values(chunk).returning(['id', 'invoice_num']).execute();
    inserted.sort((a, b) => a.id - b.id);
    inserted.forEach((row, i) => {
      if ((row.invoice_num ?? null) !== (chunk[i]!.invoice_num ?? null)) {
        throw new Error('inserted invoices came back out of order');
      }
      ids.push(row.id);
    });
  }
  return ids;
}

export async function insertChargeRows(db: Db, rows: readonly NewChargeRow[]): Promise<void> {
  for (const chunk of chunks(rows, CHARGE_CHUNK))
    await db.insertInto('invoice_charges').values(chunk).execute();
}

export async function insertTaxRows(db: Db, rows: readonly NewTaxRow[]): Promise<void> {
  for (const chunk of chunks(rows, TAX_CHUNK)) await db.insertInto('invoice_taxes').values(chunk).execute();
}

export async function deleteLinesOf(db: Db, accountId: number, invoiceId: number): Promise<void> {
  await db
    .deleteFrom('invoice_charges')
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .execute();
  await db
    .deleteFrom('invoice_taxes')
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .execute();
}

/** Changes a draft; false when the invoice is not (or no longer) a draft of the account. */
export async function updateDraft(
  db: Db,
  accountId: number,
  invoiceId: number,
  changes: InvoiceChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('invoices')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .where('is_draft', '=', true)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteDraft(db: Db, accountId: number, invoiceId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('invoices')
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .where('is_draft', '=', true)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Cancels an issued invoice no money is allocated to, in one statement: a concurrent payment lands first or not at all. */
export async function cancelIssuedInvoice(
  db: Db,
  accountId: number,
  invoiceId: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('invoices')
    .set({ is_cancelled: true, cancelled_at: now, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .where('is_draft', '=', false)
    .where('is_cancelled', '=', false)
    .where('paid_actual_minor', '=', 0)
    .where('paid_pending_minor', '=', 0)
    .where('negative_adjs_minor', '=', 0)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function markInvoicesSent(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
  now: string,
): Promise<void> {
  for (const chunk of chunks(invoiceIds, TAX_CHUNK)) {
    await db
      .updateTable('invoices')
      .set({ date_sent: now, updated_at: now })
      .where('account_id', '=', accountId)
      .where('id', 'in', chunk)
      .execute();
  }
}

export async function countInvoicesOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<number> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many of the account's invoices name the payment method as their customerPaymentMethodID. */
export async function countInvoicesUsingPaymentMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<number> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('customer_payment_method_id', '=', paymentMethodId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// The ledger's access: invoices as allocation targets.

const ALLOCATABLE_COLUMNS = [
  'id',
  'customer_id',
  'invoice_num',
  'currency_code',
  'invoice_date',
  'is_draft',
  'is_cancelled',
  'total_minor',
  'paid_actual_minor',
  'paid_pending_minor',
  'negative_adjs_minor',
] as const;

/**
 * Invoices by id or by invoiceNum, locked until the transaction ends. NOTE: FOR UPDATE on PostgreSQL, in id
 * order; an SQLite transaction holds the database's write lock already (docs/architecture.md, "Locks").
 */
export async function lockInvoicesByIdOrNum(
  db: Db,
  accountId: number,
  ids: readonly number[],
  nums: readonly number[],
): Promise<AllocatableInvoiceRecord[]> {
  if (ids.length === 0 && nums.length === 0) return [];
  const query = db
    .selectFrom('invoices')
    .select(ALLOCATABLE_COLUMNS)
    .where('account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('id', 'in', ids)] : []),
        ...(nums.length > 0 ? [eb('invoice_num', 'in', nums)] : []),
      ]),
    )
    .orderBy('id');
  const rows = await (isPostgres(db) ? query.forUpdate().execute() : query.execute());
  return rows.map(allocatableInvoiceFromRow);
}

/** The customer's issued invoices in a currency with something still open, earliest first, locked as above. */
export async function lockOpenInvoicesOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
  currencyCode: string,
): Promise<AllocatableInvoiceRecord[]> {
  const query = db
    .selectFrom('invoices')
    .select(ALLOCATABLE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('currency_code', '=', currencyCode)
    .where(owed)
    .orderBy('invoice_date')
    .orderBy('invoice_num')
    .orderBy('id');
  const rows = await (isPostgres(db) ? query.forUpdate().execute() : query.execute());
  return rows.map(allocatableInvoiceFromRow);
}

export type InvoiceMoneyColumn = 'paid_actual_minor' | 'paid_pending_minor' | 'negative_adjs_minor';

/** What a change of an invoice's money figures returns: the figures its state and events are made from. */
export const INVOICE_MONEY_FIGURES = [
  'total_minor',
  'paid_actual_minor',
  'paid_pending_minor',
  'negative_adjs_minor',
  'is_draft',
  'is_cancelled',
  'due_date',
  'next_try_date',
] as const;

export async function addToInvoiceMoney(
  db: Db,
  accountId: number,
  invoiceId: number,
  column: InvoiceMoneyColumn,
  deltaMinor: number,
  now: string,
): Promise<InvoiceMoneyFigures> {
  const row = await db
    .updateTable('invoices')
    .set((eb) => ({ [column]: eb(column, '+', deltaMinor), updated_at: now }))
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .returning(INVOICE_MONEY_FIGURES)
    .executeTakeFirstOrThrow();
  return invoiceMoneyFiguresFromRow(row);
}

/**
 * Issued invoices still owed (Balance > 0) whose due date is in [from, before): those that became Past Due on a
 * day of that window. NOTE: indexed by invoices_account_due (account_id, due_date).
 */
export function listOwedDueBetween(
  db: Db,
  accountId: number,
  from: PlainDate,
  before: PlainDate,
): Promise<{ id: number; due_date: PlainDate }[]> {
  return db
    .selectFrom('invoices')
    .select(['id', 'due_date'])
    .where('account_id', '=', accountId)
    .where('due_date', '>=', from)
    .where('due_date', '<', before)
    .where(owed)
    .orderBy('id')
    .execute();
}

/**
 * Holds the invoice row until the transaction ends, before a change reads it (the `before` of its event).
 * NOTE: PostgreSQL locks the row with FOR UPDATE; an SQLite transaction holds the database's write lock already
 * (docs/architecture.md, "Locks").
 */
export async function holdInvoice(db: Db, accountId: number, invoiceId: number): Promise<void> {
  if (!isPostgres(db)) return;
  await db
    .selectFrom('invoices')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .forUpdate()
    .execute();
}

export async function setNextTryDate(
  db: Db,
  accountId: number,
  invoiceId: number,
  nextTryDate: string | null,
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ next_try_date: nextTryDate })
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .execute();
}

// The statements module's access: a customer's issued invoices with their money.

/** The customer's issued, not cancelled invoices in a currency, with their money columns, by id. */
export async function listIssuedInvoicesOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
  currencyCode: string,
): Promise<IssuedInvoiceRecord[]> {
  const rows = await db
    .selectFrom('invoices')
    .select([
      'id',
      'invoice_num',
      'reference',
      'invoice_date',
      'due_date',
      'total_minor',
      'paid_actual_minor',
      'paid_pending_minor',
      'negative_adjs_minor',
    ])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('currency_code', '=', currencyCode)
    .where('is_draft', '=', false)
    .where('is_cancelled', '=', false)
    .orderBy('id')
    .execute();
  return rows.map(issuedInvoiceFromRow);
}
