import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { customerStates } from '../customers/index.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Page } from '../../core/paging.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type {
  RecurringInvoiceChargesTable,
  RecurringInvoicePeriodsTable,
  RecurringInvoicesTable,
  RecurringInvoiceTaxesTable,
} from './tables.ts';

export type RecurringInvoiceRow = Selectable<RecurringInvoicesTable>;
export type NewRecurringInvoiceRow = Insertable<RecurringInvoicesTable>;
export type RecurringInvoiceChanges = Updateable<
  Omit<RecurringInvoicesTable, 'id' | 'account_id' | 'customer_id' | 'created_at'>
>;
export type RecurringChargeRow = Selectable<RecurringInvoiceChargesTable>;
export type NewRecurringChargeRow = Insertable<RecurringInvoiceChargesTable>;
export type RecurringTaxRow = Selectable<RecurringInvoiceTaxesTable>;
export type NewRecurringTaxRow = Insertable<RecurringInvoiceTaxesTable>;
export type NewRecurringPeriodRow = Insertable<RecurringInvoicePeriodsTable>;

/** A recurring invoice with the state of its customer that its wire form and its billing depend on. */
export interface RecurringInvoiceWithCustomerRow extends RecurringInvoiceRow {
  customer_is_active: boolean | number;
  customer_is_suspended: boolean | number;
  customer_suspended_at: string | null;
}

const COLUMNS = [
  'id',
  'account_id',
  'customer_id',
  'currency_code',
  'reference',
  'term',
  'term_type',
  'start_date',
  'end_date',
  'last_inv_date',
  'last_renew_date',
  'next_renew_date',
  'next_inv_date',
  'period_count',
  'num_days_before_to_inv',
  'is_cancelled',
  'cancelled_at',
  'suspended_at',
  'collection_method',
  'gateway_id',
  'customer_payment_method_id',
  'invoice_terms',
  'invoice_notes',
  'parked_reason',
  'parked_at',
  'lease_until',
  'created_at',
  'updated_at',
] as const;

/** The same columns, qualified for queries that join the customer. */
const QUALIFIED_COLUMNS = COLUMNS.map((column) => `recurring_invoices.${column}` as const);

const CHARGE_COLUMNS = [
  'id',
  'account_id',
  'recurring_invoice_id',
  'line',
  'descrip',
  'qty',
  'unit_cost_ex',
  'is_tax_inclusive',
  'display_order',
] as const;

const TAX_COLUMNS = ['id', 'account_id', 'recurring_invoice_id', 'name', 'perc'] as const;

/**
 * The recurring invoice with its customer's state, joined from the customers module's `customerStates`: a page of
 * recurring invoices is read in a fixed number of statements, and the due list filters on that state in SQL.
 */
function selectWithCustomer(db: Db, accountId: number) {
  return db
    .selectFrom('recurring_invoices')
    .innerJoin(customerStates(db, accountId), 'customer_states.customer_id', 'recurring_invoices.customer_id')
    .select(QUALIFIED_COLUMNS)
    .select([
      'customer_states.customer_is_active',
      'customer_states.customer_is_suspended',
      'customer_states.customer_suspended_at',
    ])
    .where('recurring_invoices.account_id', '=', accountId);
}

export function findRecurringInvoice(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
): Promise<RecurringInvoiceWithCustomerRow | undefined> {
  return selectWithCustomer(db, accountId)
    .where('recurring_invoices.id', '=', recurringInvoiceId)
    .executeTakeFirst();
}

export function findRecurringInvoices(
  db: Db,
  accountId: number,
  recurringInvoiceIds: readonly number[],
): Promise<RecurringInvoiceWithCustomerRow[]> {
  if (recurringInvoiceIds.length === 0) return Promise.resolve([]);
  return selectWithCustomer(db, accountId)
    .where('recurring_invoices.id', 'in', recurringInvoiceIds)
    .orderBy('recurring_invoices.id')
    .execute();
}

/**
 * Reads the recurring invoice and locks its row until the transaction ends, so that two bill runs, or a bill
 * run and an edit, take turns on it. NOTE: FOR UPDATE is PostgreSQL's row lock; an SQLite transaction holds the
 * database's write lock already (docs/architecture.md, "Locks").
 */
export async function lockRecurringInvoice(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
): Promise<RecurringInvoiceRow | undefined> {
  return db
    .selectFrom('recurring_invoices')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', recurringInvoiceId)
    .$if(isPostgres(db), (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** A page in creation order, of the account or of one of its customers. */
export function listRecurringInvoices(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<RecurringInvoiceWithCustomerRow[]> {
  return selectWithCustomer(db, accountId)
    .$if(customerId !== undefined, (qb) => qb.where('recurring_invoices.customer_id', '=', customerId!))
    .orderBy('recurring_invoices.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export function listCharges(
  db: Db,
  accountId: number,
  recurringInvoiceIds: number[],
): Promise<RecurringChargeRow[]> {
  if (recurringInvoiceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('recurring_invoice_charges')
    .select(CHARGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', 'in', recurringInvoiceIds)
    .orderBy('recurring_invoice_id')
    .orderBy('line')
    .execute();
}

export function listTaxes(
  db: Db,
  accountId: number,
  recurringInvoiceIds: number[],
): Promise<RecurringTaxRow[]> {
  if (recurringInvoiceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('recurring_invoice_taxes')
    .select(TAX_COLUMNS)
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', 'in', recurringInvoiceIds)
    .orderBy('recurring_invoice_id')
    .orderBy('id')
    .execute();
}

export function findRecurringInvoiceIdByReference(
  db: Db,
  accountId: number,
  reference: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('recurring_invoices')
    .select('id')
    .where('account_id', '=', accountId)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export async function insertRecurringInvoice(db: Db, row: NewRecurringInvoiceRow): Promise<number> {
  const inserted = await db
    .insertInto('recurring_invoices')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateRecurringInvoice(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
  changes: RecurringInvoiceChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('recurring_invoices')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', recurringInvoiceId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Charges and taxes go with it (ON DELETE CASCADE). */
export async function deleteRecurringInvoice(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('recurring_invoices')
    .where('account_id', '=', accountId)
    .where('id', '=', recurringInvoiceId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function replaceCharges(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
  rows: NewRecurringChargeRow[],
): Promise<void> {
  await db
    .deleteFrom('recurring_invoice_charges')
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', '=', recurringInvoiceId)
    .execute();
  if (rows.length) await db.insertInto('recurring_invoice_charges').values(rows).execute();
}

export async function replaceTaxes(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
  rows: NewRecurringTaxRow[],
): Promise<void> {
  await db
    .deleteFrom('recurring_invoice_taxes')
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', '=', recurringInvoiceId)
    .execute();
  if (rows.length) await db.insertInto('recurring_invoice_taxes').values(rows).execute();
}

export async function countPeriods(db: Db, accountId: number, recurringInvoiceId: number): Promise<number> {
  const row = await db
    .selectFrom('recurring_invoice_periods')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', '=', recurringInvoiceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPeriods(db: Db, rows: NewRecurringPeriodRow[]): Promise<void> {
  if (rows.length) await db.insertInto('recurring_invoice_periods').values(rows).execute();
}

/**
 * Ids of the account's recurring invoices with an invoice due by `today`: not cancelled, not parked, and whose
 * customer is active and not suspended, earliest due first.
 */
export async function listDueRecurringInvoiceIds(
  db: Db,
  accountId: number,
  today: PlainDate,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('recurring_invoices')
    .innerJoin(customerStates(db, accountId), 'customer_states.customer_id', 'recurring_invoices.customer_id')
    .select('recurring_invoices.id')
    .where('recurring_invoices.account_id', '=', accountId)
    .where('recurring_invoices.is_cancelled', '=', false)
    .where('recurring_invoices.parked_at', 'is', null)
    .where('recurring_invoices.next_inv_date', '<=', today)
    .where('customer_states.customer_is_active', '=', true)
    .where('customer_states.customer_is_suspended', '=', false)
    .orderBy('recurring_invoices.next_inv_date')
    .orderBy('recurring_invoices.id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function countRecurringInvoicesOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<number> {
  const row = await db
    .selectFrom('recurring_invoices')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many of the account's recurring invoices name the payment method as their customerPaymentMethodID. */
export async function countRecurringInvoicesUsingPaymentMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<number> {
  const row = await db
    .selectFrom('recurring_invoices')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('customer_payment_method_id', '=', paymentMethodId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Recurring invoices not cancelled whose StartDate or EndDate is in [from, to]: those whose comp_Status may have
 * moved by time on a day of that window.
 */
export function listWithDatesBetween(
  db: Db,
  accountId: number,
  from: PlainDate,
  to: PlainDate,
): Promise<Pick<RecurringInvoiceRow, 'id' | 'start_date' | 'end_date' | 'created_at'>[]> {
  return db
    .selectFrom('recurring_invoices')
    .select(['id', 'start_date', 'end_date', 'created_at'])
    .where('account_id', '=', accountId)
    .where('is_cancelled', '=', false)
    .where((eb) =>
      eb.or([
        eb.and([eb('start_date', '>=', from), eb('start_date', '<=', to)]),
        eb.and([eb('end_date', '>=', from), eb('end_date', '<=', to)]),
      ]),
    )
    .orderBy('id')
    .execute();
}
