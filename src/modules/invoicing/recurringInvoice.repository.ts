import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { customerStates } from '../customers/index.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Page } from '../../core/paging.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { RecurringInvoicesTable } from './tables.ts';
import {
  newRecurringChargeToRow,
  newRecurringInvoiceToRow,
  newRecurringPeriodToRow,
  newRecurringTaxToRow,
  recurringChargeFromRow,
  recurringInvoiceChangesToRow,
  recurringInvoiceFromRow,
  recurringInvoiceWithCustomerFromRow,
  recurringTaxFromRow,
} from './recurringInvoice.mapper.ts';
import type {
  NewRecurringCharge,
  NewRecurringInvoice,
  NewRecurringPeriod,
  RecurringChargeRecord,
  RecurringInvoiceChanges,
  RecurringInvoiceRecord,
  RecurringInvoiceWithCustomer,
  RecurringTax,
} from './recurringInvoice.ts';

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

export async function findRecurringInvoice(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
): Promise<RecurringInvoiceWithCustomer | undefined> {
  const row = await selectWithCustomer(db, accountId)
    .where('recurring_invoices.id', '=', recurringInvoiceId)
    .executeTakeFirst();
  return row && recurringInvoiceWithCustomerFromRow(row);
}

export async function findRecurringInvoices(
  db: Db,
  accountId: number,
  recurringInvoiceIds: readonly number[],
): Promise<RecurringInvoiceWithCustomer[]> {
  if (recurringInvoiceIds.length === 0) return [];
  const rows = await selectWithCustomer(db, accountId)
    .where('recurring_invoices.id', 'in', recurringInvoiceIds)
    .orderBy('recurring_invoices.id')
    .execute();
  return rows.map(recurringInvoiceWithCustomerFromRow);
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
): Promise<RecurringInvoiceRecord | undefined> {
  const row = await db
    .selectFrom('recurring_invoices')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', recurringInvoiceId)
    .$if(isPostgres(db), (qb) => qb.forUpdate())
    .executeTakeFirst();
  return row && recurringInvoiceFromRow(row);
}

/** A page in creation order, of the account or of one of its customers. */
export async function listRecurringInvoices(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<RecurringInvoiceWithCustomer[]> {
  const rows = await selectWithCustomer(db, accountId)
    .$if(customerId !== undefined, (qb) => qb.where('recurring_invoices.customer_id', '=', customerId!))
    .orderBy('recurring_invoices.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(recurringInvoiceWithCustomerFromRow);
}

export async function listCharges(
  db: Db,
  accountId: number,
  recurringInvoiceIds: number[],
): Promise<RecurringChargeRecord[]> {
  if (recurringInvoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('recurring_invoice_charges')
    .select(CHARGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', 'in', recurringInvoiceIds)
    .orderBy('recurring_invoice_id')
    .orderBy('line')
    .execute();
  return rows.map(recurringChargeFromRow);
}

export async function listTaxes(
  db: Db,
  accountId: number,
  recurringInvoiceIds: number[],
): Promise<RecurringTax[]> {
  if (recurringInvoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('recurring_invoice_taxes')
    .select(TAX_COLUMNS)
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', 'in', recurringInvoiceIds)
    .orderBy('recurring_invoice_id')
    .orderBy('id')
    .execute();
  return rows.map(recurringTaxFromRow);
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

export async function insertRecurringInvoice(db: Db, invoice: NewRecurringInvoice): Promise<number> {
  const inserted = await db
    .insertInto('recurring_invoices')
    .values(newRecurringInvoiceToRow(invoice))
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
    .set(recurringInvoiceChangesToRow(changes))
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
  charges: readonly NewRecurringCharge[],
): Promise<void> {
  await db
    .deleteFrom('recurring_invoice_charges')
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', '=', recurringInvoiceId)
    .execute();
  if (charges.length) {
    await db
      .insertInto('recurring_invoice_charges')
      .values(charges.map((charge) => newRecurringChargeToRow(accountId, recurringInvoiceId, charge)))
      .execute();
  }
}

export async function replaceTaxes(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
  taxes: readonly Pick<RecurringTax, 'name' | 'perc'>[],
): Promise<void> {
  await db
    .deleteFrom('recurring_invoice_taxes')
    .where('account_id', '=', accountId)
    .where('recurring_invoice_id', '=', recurringInvoiceId)
    .execute();
  if (taxes.length) {
    await db
      .insertInto('recurring_invoice_taxes')
      .values(taxes.map((tax) => newRecurringTaxToRow(accountId, recurringInvoiceId, tax)))
      .execute();
  }
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

export async function insertPeriods(
  db: Db,
  accountId: number,
  recurringInvoiceId: number,
  periods: readonly NewRecurringPeriod[],
): Promise<void> {
  if (periods.length === 0) return;
  await db
    .insertInto('recurring_invoice_periods')
    .values(periods.map((period) => newRecurringPeriodToRow(accountId, recurringInvoiceId, period)))
    .execute();
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
): Promise<Pick<Selectable<RecurringInvoicesTable>, 'id' | 'start_date' | 'end_date' | 'created_at'>[]> {
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
