import type { Db } from '../../storage/database.ts';
import { owed } from './invoice.repository.ts';

export interface CollectableInvoiceRow {
  id: number;
  customer_id: number;
  gateway_id: number | null;
  customer_payment_method_id: number | null;
  currency_code: string;
  num_tries: number;
  next_try_date: string | null;
  due_date: string;
  total_minor: number;
  paid_actual_minor: number;
  paid_pending_minor: number;
  negative_adjs_minor: number;
}

const COLLECTABLE_COLUMNS = [
  'id',
  'customer_id',
  'gateway_id',
  'customer_payment_method_id',
  'currency_code',
  'num_tries',
  'next_try_date',
  'due_date',
  'total_minor',
  'paid_actual_minor',
  'paid_pending_minor',
  'negative_adjs_minor',
] as const;

/**
 * Invoices to collect through a gateway now: owed, collected by `method` (credit_card or debit_order), with a
 * gateway and a payment method, and either due for their first try (never tried, nothing scheduled, due by
 * `today`) or scheduled for a retry by `now`.
 */
export function listInvoicesDue(
  db: Db,
  accountId: number,
  method: 'credit_card' | 'debit_order',
  now: string,
  today: string,
  page: { limit: number; afterId: number } | { onlyId: number },
): Promise<CollectableInvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .select(COLLECTABLE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('collection_method', '=', method)
    .where('gateway_id', 'is not', null)
    .where('customer_payment_method_id', 'is not', null)
    .$if('onlyId' in page, (qb) => qb.where('id', '=', (page as { onlyId: number }).onlyId))
    .$if('afterId' in page, (qb) => qb.where('id', '>', (page as { afterId: number }).afterId))
    .where((eb) =>
      eb.and([
        owed(eb),
        eb.or([
          eb('next_try_date', '<=', now),
          eb.and([eb('next_try_date', 'is', null), eb('num_tries', '=', 0), eb('due_date', '<=', today)]),
        ]),
      ]),
    )
    .orderBy('id')
    .limit('limit' in page ? page.limit : 1)
    .execute();
}

/** An invoice's collection columns, whatever its state. */
export function findCollectableInvoice(
  db: Db,
  accountId: number,
  invoiceId: number,
): Promise<CollectableInvoiceRow | undefined> {
  return db
    .selectFrom('invoices')
    .select(COLLECTABLE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .executeTakeFirst();
}

export async function setCollectionSchedule(
  db: Db,
  accountId: number,
  invoiceId: number,
  changes: { addTry: boolean; nextTryDate: string | null; updatedAt: string },
): Promise<void> {
  await db
    .updateTable('invoices')
    .set((eb) => ({
      num_tries: changes.addTry ? eb('num_tries', '+', 1) : eb.ref('num_tries'),
      next_try_date: changes.nextTryDate,
      updated_at: changes.updatedAt,
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .execute();
}

/** The customer's owed card invoices collected through the gateway. */
export function listOwedCardInvoicesOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
  gatewayId: number,
): Promise<CollectableInvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .select(COLLECTABLE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('collection_method', '=', 'credit_card')
    .where('gateway_id', '=', gatewayId)
    .where((eb) => owed(eb))
    .orderBy('id')
    .execute();
}

export async function setCollectionMethodAndTry(
  db: Db,
  accountId: number,
  invoiceId: number,
  changes: { paymentMethodId: number; nextTryDate: string | null; updatedAt: string },
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({
      customer_payment_method_id: changes.paymentMethodId,
      next_try_date: changes.nextTryDate,
      updated_at: changes.updatedAt,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .execute();
}
