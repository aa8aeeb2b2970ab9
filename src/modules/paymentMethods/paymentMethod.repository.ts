import { expressionBuilder } from 'kysely';
import type { Insertable, Selectable, Updateable } from 'kysely';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { Page } from '../../core/paging.ts';
import type { Database } from '../../storage/schema.ts';
import type { PaymentMethodsTable } from './tables.ts';
import type { CustomerOfRow } from '../customers/index.ts';

/** A payment method without its sealed account number and IBAN: what lists and checks read. */
export type PaymentMethodRow = Omit<
  Selectable<PaymentMethodsTable>,
  'account_id' | 'account_number_sealed' | 'iban_sealed' | 'updated_at'
>;
/** With the sealed columns, for the one read that returns the full bank account. */
export type SealedPaymentMethodRow = PaymentMethodRow &
  Pick<Selectable<PaymentMethodsTable>, 'account_number_sealed' | 'iban_sealed'>;
export type NewPaymentMethodRow = Insertable<PaymentMethodsTable>;
export type BankAccountChanges = Updateable<
  Pick<
    PaymentMethodsTable,
    | 'is_valid'
    | 'last_four'
    | 'debit_method'
    | 'account_type'
    | 'account_holder'
    | 'bank'
    | 'account_number_sealed'
    | 'branch_code'
    | 'iban_sealed'
    | 'bic'
    | 'routing_number'
    | 'mandate_reference'
    | 'mandate_signed_on'
    | 'updated_at'
  >
>;

// The sealed columns are read only by findSealedPaymentMethod: a list never decrypts anything.
const COLUMNS = [
  'id',
  'customer_id',
  'gateway_id',
  'method_type',
  'token',
  'is_primary',
  'is_valid',
  'last_four',
  'card_type',
  'name_on_card',
  'last_name_on_card',
  'expiry_month',
  'expiry_year',
  'debit_method',
  'account_type',
  'account_holder',
  'bank',
  'branch_code',
  'bic',
  'routing_number',
  'mandate_reference',
  'mandate_signed_on',
  'created_at',
] as const;

export function findPaymentMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<PaymentMethodRow | undefined> {
  return db
    .selectFrom('payment_methods')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .executeTakeFirst();
}

export function findPaymentMethods(
  db: Db,
  accountId: number,
  paymentMethodIds: readonly number[],
): Promise<PaymentMethodRow[]> {
  if (paymentMethodIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('payment_methods')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', paymentMethodIds)
    .orderBy('id')
    .execute();
}

export function findSealedPaymentMethods(
  db: Db,
  accountId: number,
  paymentMethodIds: readonly number[],
): Promise<SealedPaymentMethodRow[]> {
  if (paymentMethodIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('payment_methods')
    .select([...COLUMNS, 'account_number_sealed', 'iban_sealed'])
    .where('account_id', '=', accountId)
    .where('id', 'in', paymentMethodIds)
    .execute();
}

export function findSealedPaymentMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<SealedPaymentMethodRow | undefined> {
  return db
    .selectFrom('payment_methods')
    .select([...COLUMNS, 'account_number_sealed', 'iban_sealed'])
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .executeTakeFirst();
}

export function listPaymentMethods(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<PaymentMethodRow[]> {
  return db
    .selectFrom('payment_methods')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/**
 * A column of the customer's primary method (null when it has none): a scalar subquery. A customer has one primary
 * method at most (the payment_methods_one_primary index).
 */
export function primaryPaymentMethodColumnOf(customer: CustomerOfRow, column: 'id' | 'token') {
  return expressionBuilder<Database, never>()
    .selectFrom('payment_methods')
    .select(column)
    .where('account_id', '=', customer.accountId)
    .where('customer_id', '=', customer.id)
    .where('is_primary', '=', true);
}

/** The primary method of each of these customers that has one: one statement for a page of customers. */
const primaryPaymentMethodsOf = preparedQuery((db, accountId: number, customerIds: readonly number[]) =>
  db
    .selectFrom('payment_methods')
    .select(['id', 'customer_id', 'token'])
    .where('account_id', '=', accountId)
    .where('customer_id', 'in', customerIds)
    .where('is_primary', '=', true),
);

export function listPrimaryPaymentMethods(
  db: Db,
  accountId: number,
  customerIds: readonly number[],
): Promise<{ id: number; customer_id: number; token: string }[]> {
  if (customerIds.length === 0) return Promise.resolve([]);
  return primaryPaymentMethodsOf(db, accountId, customerIds);
}

/**
 * Locks the customer's payment methods until the transaction ends, so that changes to which one is primary are
 * made one at a time per customer.
 * NOTE: on PostgreSQL, SELECT ... FOR UPDATE in id order (an UPDATE would lock in whatever order it meets the
 * rows, and two could deadlock). A customer with no method yet has no row to lock: two first methods at once
 * are then kept apart by the one-primary unique index, and the use case retries the loser. An SQLite
 * transaction holds the database's write lock already (docs/architecture.md, "Locks").
 */
export async function lockCustomerPaymentMethods(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<void> {
  if (!isPostgres(db)) return;
  await db
    .selectFrom('payment_methods')
    .select('id')
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .forUpdate()
    .execute();
}

export async function hasPrimaryPaymentMethod(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('payment_methods')
    .select('id')
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('is_primary', '=', true)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Makes the method its customer's only primary: clears the flag first, then sets it, so that the one-primary
 * index never sees two. False when the method is not the customer's (then the caller rolls back the clearing).
 * Run it after lockCustomerPaymentMethods in the same transaction.
 */
export async function setPrimaryPaymentMethod(
  db: Db,
  accountId: number,
  customerId: number,
  paymentMethodId: number,
  updatedAt: string,
): Promise<boolean> {
  await db
    .updateTable('payment_methods')
    .set({ is_primary: false, updated_at: updatedAt })
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('is_primary', '=', true)
    .where('id', '!=', paymentMethodId)
    .execute();
  const result = await db
    .updateTable('payment_methods')
    .set({ is_primary: true, updated_at: updatedAt })
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('id', '=', paymentMethodId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Clears the customer's primary flag, before a new method is inserted as primary. */
export async function clearPrimaryPaymentMethod(
  db: Db,
  accountId: number,
  customerId: number,
  updatedAt: string,
): Promise<void> {
  await db
    .updateTable('payment_methods')
    .set({ is_primary: false, updated_at: updatedAt })
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('is_primary', '=', true)
    .execute();
}

export async function insertPaymentMethod(db: Db, row: NewPaymentMethodRow): Promise<number> {
  const inserted = await db
    .insertInto('payment_methods')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/** Updates a bank account's details; false when it is not (or no longer) a bank account of the account. */
export async function updateBankAccount(
  db: Db,
  accountId: number,
  paymentMethodId: number,
  changes: BankAccountChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('payment_methods')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .where('method_type', '=', 'bank_account')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Deletes a method unless it is primary, in one statement: a concurrent setprimary that made it primary first
 * leaves it in place (PostgreSQL re-reads the row's flag after waiting for its lock). False when nothing was
 * deleted; the caller finds out why.
 */
export async function deleteNonPrimaryPaymentMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('payment_methods')
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .where('is_primary', '=', false)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Every method of a customer, primary included: the customer itself is being deleted. */
export async function deleteCustomerPaymentMethods(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<void> {
  await db
    .deleteFrom('payment_methods')
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .execute();
}

/** The customer's bank accounts with their sealed numbers (to find one by its details). */
export function listSealedBankAccountsOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<SealedPaymentMethodRow[]> {
  return db
    .selectFrom('payment_methods')
    .select([...COLUMNS, 'account_number_sealed', 'iban_sealed'])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('method_type', '=', 'bank_account')
    .orderBy('id')
    .execute();
}

export async function setPaymentMethodValidity(
  db: Db,
  accountId: number,
  paymentMethodId: number,
  isValid: boolean,
  updatedAt: string,
): Promise<void> {
  await db
    .updateTable('payment_methods')
    .set({ is_valid: isValid, updated_at: updatedAt })
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .execute();
}
