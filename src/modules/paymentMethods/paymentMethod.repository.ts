import { expressionBuilder } from 'kysely';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { Page } from '../../core/paging.ts';
import type { Database } from '../../storage/schema.ts';
import {
  bankAccountChangesToRow,
  newPaymentMethodToRow,
  paymentMethodFromRow,
  sealedPaymentMethodFromRow,
  verificationToRow,
} from './paymentMethod.mapper.ts';
import type {
  BankAccountChanges,
  BankAccountVerification,
  NewPaymentMethod,
  PaymentMethod,
  PrimaryPaymentMethod,
  SealedPaymentMethod,
} from './paymentMethod.ts';
import type { CustomerOfRow } from '../customers/index.ts';

// The sealed columns are read only by findSealedPaymentMethod: a list never decrypts anything.
const COLUMNS = [
  'id',
  'customer_id',
  'gateway_id',
  'method_type',
  'token',
  'vault_token_sealed',
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
  'id_number_kind',
  'id_number_ending',
  'verification_status',
  'verification_reason',
  'verification_detail',
  'verification_checked_at',
  'verification_gateway_id',
  'verification_ref',
  'created_at',
] as const;

/** The sealed columns, read only where a bank account is opened. */
const SEALED = ['account_number_sealed', 'iban_sealed', 'id_number_sealed'] as const;

export async function findPaymentMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<PaymentMethod | undefined> {
  const row = await db
    .selectFrom('payment_methods')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .executeTakeFirst();
  return row && paymentMethodFromRow(row);
}

export async function findPaymentMethods(
  db: Db,
  accountId: number,
  paymentMethodIds: readonly number[],
): Promise<PaymentMethod[]> {
  if (paymentMethodIds.length === 0) return [];
  const rows = await db
    .selectFrom('payment_methods')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', paymentMethodIds)
    .orderBy('id')
    .execute();
  return rows.map(paymentMethodFromRow);
}

export async function findSealedPaymentMethods(
  db: Db,
  accountId: number,
  paymentMethodIds: readonly number[],
): Promise<SealedPaymentMethod[]> {
  if (paymentMethodIds.length === 0) return [];
  const rows = await db
    .selectFrom('payment_methods')
    .select([...COLUMNS, ...SEALED])
    .where('account_id', '=', accountId)
    .where('id', 'in', paymentMethodIds)
    .execute();
  return rows.map(sealedPaymentMethodFromRow);
}

export async function findSealedPaymentMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<SealedPaymentMethod | undefined> {
  const row = await db
    .selectFrom('payment_methods')
    .select([...COLUMNS, ...SEALED])
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .executeTakeFirst();
  return row && sealedPaymentMethodFromRow(row);
}

export async function listPaymentMethods(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<PaymentMethod[]> {
  const rows = await db
    .selectFrom('payment_methods')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(paymentMethodFromRow);
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

export async function listPrimaryPaymentMethods(
  db: Db,
  accountId: number,
  customerIds: readonly number[],
): Promise<PrimaryPaymentMethod[]> {
  if (customerIds.length === 0) return [];
  const rows = await primaryPaymentMethodsOf(db, accountId, customerIds);
  return rows.map((row) => ({ id: row.id, customerId: row.customer_id, token: row.token }));
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

export async function insertPaymentMethod(db: Db, method: NewPaymentMethod): Promise<number> {
  const inserted = await db
    .insertInto('payment_methods')
    .values(newPaymentMethodToRow(method))
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
    .set(bankAccountChangesToRow(changes))
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
export async function listSealedBankAccountsOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<SealedPaymentMethod[]> {
  const rows = await db
    .selectFrom('payment_methods')
    .select([...COLUMNS, ...SEALED])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('method_type', '=', 'bank_account')
    .orderBy('id')
    .execute();
  return rows.map(sealedPaymentMethodFromRow);
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

/**
 * Records a bank account's verification, and its validity with it. Only while the account is still the one that was
 * verified: `asked` is the verification the answer is to (an edit since has started another, and the answer is for
 * details the account no longer has). False when nothing was written.
 */
export async function setBankAccountVerification(
  db: Db,
  accountId: number,
  paymentMethodId: number,
  asked: BankAccountVerification | null,
  changes: { verification: BankAccountVerification; isValid: boolean; updatedAt: string },
): Promise<boolean> {
  const result = await db
    .updateTable('payment_methods')
    .set({
      ...verificationToRow(changes.verification),
      is_valid: changes.isValid,
      updated_at: changes.updatedAt,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', paymentMethodId)
    .where('method_type', '=', 'bank_account')
    .where((eb) =>
      asked === null
        ? eb('verification_status', 'is', null)
        : eb.and([
            eb('verification_status', '=', asked.status),
            asked.ref === null ? eb('verification_ref', 'is', null) : eb('verification_ref', '=', asked.ref),
          ]),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The ids of the account's bank accounts whose verification is pending, oldest first. */
export async function listPendingVerifications(db: Db, accountId: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('payment_methods')
    .select('id')
    .where('account_id', '=', accountId)
    .where('verification_status', '=', 'pending')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}
