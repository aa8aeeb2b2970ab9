import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { Page } from '../../core/paging.ts';
import type { PaymentsTable } from '../../storage/schema.ts';

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

/** The id of the customer's payment the gateway's charge `ref` recorded, if one did. */
export async function findPaymentIdByRef(
  db: Db,
  accountId: number,
  customerId: number,
  ref: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('payments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('ref', '=', ref)
    .orderBy('id')
    .executeTakeFirst();
  return row?.id;
}

/** The account's first payment with this Ref whichever its customer: a provider's charge id is unique to it. */
export async function findAccountPaymentIdByRef(
  db: Db,
  accountId: number,
  ref: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('payments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ref', '=', ref)
    .orderBy('id')
    .executeTakeFirst();
  return row?.id;
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
