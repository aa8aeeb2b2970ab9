import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { Page } from '../../core/paging.ts';
import { newPaymentToRow, paymentChangesToRow, paymentFromRow } from './payment.mapper.ts';
import type { NewPayment, PaymentChanges, PaymentRecord } from './payment.ts';

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
): Promise<PaymentRecord | undefined> {
  const row = (await paymentsByIds(db, accountId, [paymentId]))[0];
  return row && paymentFromRow(row);
}

export async function findPayments(
  db: Db,
  accountId: number,
  paymentIds: readonly number[],
): Promise<PaymentRecord[]> {
  if (paymentIds.length === 0) return [];
  return (await paymentsByIds(db, accountId, paymentIds)).map(paymentFromRow);
}

export async function listPayments(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<PaymentRecord[]> {
  const rows = await db
    .selectFrom('payments')
    .select(PAYMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(paymentFromRow);
}

/**
 * The account's payments whose Ref is `ref` (a provider's charge id), the customer's only when `customerId` is
 * given, oldest first (at most `limit`).
 */
export async function listPaymentIdsByRef(
  db: Db,
  accountId: number,
  ref: string,
  limit: number,
  customerId?: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('payments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ref', '=', ref)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function insertPayment(db: Db, payment: NewPayment): Promise<number> {
  return (
    await db.insertInto('payments').values(newPaymentToRow(payment)).returning('id').executeTakeFirstOrThrow()
  ).id;
}

export async function updatePayment(
  db: Db,
  accountId: number,
  paymentId: number,
  changes: PaymentChanges,
): Promise<void> {
  await db
    .updateTable('payments')
    .set(paymentChangesToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', paymentId)
    .execute();
}

export async function deletePayment(db: Db, accountId: number, paymentId: number): Promise<void> {
  await db.deleteFrom('payments').where('account_id', '=', accountId).where('id', '=', paymentId).execute();
}
