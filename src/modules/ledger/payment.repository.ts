import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { Page } from '../../core/paging.ts';
import type { PaymentsTable } from './tables.ts';

export type PaymentRow = Selectable<PaymentsTable>;
export type NewPaymentRow = Insertable<PaymentsTable>;
export type PaymentChanges = Updateable<
  Omit<PaymentsTable, 'id' | 'account_id' | 'customer_id' | 'created_at'>
>;

const PAYMENT_COLUMNS = [
  'id',
  'account_id',
  'customer_id',
  'currency_code',
  'amount_minor',
  'allocated_minor',
  'payment_date',
  'method',
  'state',
  'memo',
  'ref',
  'payment_method_id',
  'failure_reason',
  'failure_code',
  'created_at',
  'updated_at',
] as const;

const paymentsByIds = preparedQuery((db, accountId: number, paymentIds: readonly number[]) =>
  db
    .selectFrom('payments')
    .select(PAYMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', paymentIds)
    .orderBy('id'),
);

export async function findPayment(
  db: Db,
  accountId: number,
  paymentId: number,
): Promise<PaymentRow | undefined> {
  return (await paymentsByIds(db, accountId, [paymentId]))[0];
}

export function findPayments(
  db: Db,
  accountId: number,
  paymentIds: readonly number[],
): Promise<PaymentRow[]> {
  if (paymentIds.length === 0) return Promise.resolve([]);
  return paymentsByIds(db, accountId, paymentIds);
}

export function listPayments(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .select(PAYMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** The first payment with this Ref: the customer's, or (null) the account's, a provider's charge id being unique. */
export async function findPaymentIdByRef(
  db: Db,
  accountId: number,
  customerId: number | null,
  ref: string,
): Promise<number | undefined> {
  let query = db
    .selectFrom('payments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ref', '=', ref);
  if (customerId !== null) query = query.where('customer_id', '=', customerId);
  return (await query.orderBy('id').executeTakeFirst())?.id;
}

export async function insertPayment(db: Db, row: NewPaymentRow): Promise<number> {
  return (await db.insertInto('payments').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

export async function updatePayment(
  db: Db,
  accountId: number,
  paymentId: number,
  changes: PaymentChanges,
): Promise<void> {
  await db
    .updateTable('payments')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', paymentId)
    .execute();
}

export async function deletePayment(db: Db, accountId: number, paymentId: number): Promise<void> {
  await db.deleteFrom('payments').where('account_id', '=', accountId).where('id', '=', paymentId).execute();
}
