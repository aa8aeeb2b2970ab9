import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import { customerStates } from '../customers/index.ts';
import { owed } from './invoice.repository.ts';
import type { CollectableInvoiceRecord } from './invoice.ts';
import { collectableInvoiceFromRow } from './invoice.mapper.ts';

const COLLECTABLE_COLUMNS = [
  'id',
  'customer_id',
  'gateway_id',
  'customer_payment_method_id',
  'collection_method',
  'collection_problem',
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
 * Invoices to collect through a gateway now: owed, collected by `method` (credit_card or debit_order), either
 * naming their gateway and payment method or following a customer whose PaymentMethod is one of
 * `customerPaymentMethods`, and either due for their first try (never tried, nothing scheduled, due by `today`)
 * or scheduled for a retry by `now`.
 */
export async function listInvoicesDue(
  db: Db,
  accountId: number,
  method: 'credit_card' | 'debit_order',
  customerPaymentMethods: readonly string[],
  now: string,
  today: string,
  page: { limit: number; afterId: number } | { onlyIds: readonly number[] },
): Promise<CollectableInvoiceRecord[]> {
  if ('onlyIds' in page && page.onlyIds.length === 0) return [];
  const rows = await db
    .selectFrom('invoices')
    .select(COLLECTABLE_COLUMNS)
    .where('account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('collection_method', '=', method),
          eb('gateway_id', 'is not', null),
          eb('customer_payment_method_id', 'is not', null),
        ]),
        eb.and([
          eb('collection_method', 'is', null),
          eb(
            'customer_id',
            'in',
            eb
              .selectFrom(customerStates(db, accountId))
              .select('customer_states.customer_id')
              .where('customer_states.customer_payment_method', 'in', customerPaymentMethods),
          ),
        ]),
      ]),
    )
    .$if('onlyIds' in page, (qb) => qb.where('id', 'in', (page as { onlyIds: readonly number[] }).onlyIds))
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
    .$if('limit' in page, (qb) => qb.limit((page as { limit: number }).limit))
    .execute();
  return rows.map(collectableInvoiceFromRow);
}

/** An invoice's collection columns, whatever its state. */
export async function findCollectableInvoice(
  db: Db,
  accountId: number,
  invoiceId: number,
): Promise<CollectableInvoiceRecord | undefined> {
  const row = await db
    .selectFrom('invoices')
    .select(COLLECTABLE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .executeTakeFirst();
  return row && collectableInvoiceFromRow(row);
}

/** Ids per statement below: far below either dialect's limit on parameters. */
const IDS_PER_STATEMENT = 5_000;

/** The same change of NumTries and NextTryDate on each invoice, one statement per few thousand. */
export async function setCollectionSchedule(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
  changes: { addTry: boolean; nextTryDate: string | null; updatedAt: string },
): Promise<void> {
  for (let at = 0; at < invoiceIds.length; at += IDS_PER_STATEMENT) {
    await db
      .updateTable('invoices')
      .set((eb) => ({
        num_tries: changes.addTry ? eb('num_tries', '+', 1) : eb.ref('num_tries'),
        next_try_date: changes.nextTryDate,
        updated_at: changes.updatedAt,
      }))
      .where('account_id', '=', accountId)
      .where('id', 'in', invoiceIds.slice(at, at + IDS_PER_STATEMENT))
      .execute();
  }
}

/**
 * Takes the invoices' row locks until the transaction ends. NOTE: PostgreSQL locks the rows an UPDATE of many
 * takes in the order it finds them; FOR UPDATE under ORDER BY takes them in id order, as the ledger does, so two
 * transactions never wait on each other crosswise. An SQLite transaction holds the database's write lock already
 * (docs/architecture.md, "Storage").
 */
export async function lockInvoicesInIdOrder(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<void> {
  if (!isPostgres(db)) return;
  const sorted = [...invoiceIds].sort((a, b) => a - b);
  for (let at = 0; at < sorted.length; at += IDS_PER_STATEMENT) {
    await db
      .selectFrom('invoices')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', sorted.slice(at, at + IDS_PER_STATEMENT))
      .orderBy('id')
      .forUpdate()
      .execute();
  }
}

/** One more try on each invoice and the next one (none by default), in one statement for a batch's worth. */
export async function countTryOn(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
  updatedAt: string,
  nextTryDate: string | null = null,
): Promise<void> {
  for (let at = 0; at < invoiceIds.length; at += IDS_PER_STATEMENT) {
    await db
      .updateTable('invoices')
      .set((eb) => ({
        num_tries: eb('num_tries', '+', 1),
        next_try_date: nextTryDate,
        updated_at: updatedAt,
      }))
      .where('account_id', '=', accountId)
      .where('id', 'in', invoiceIds.slice(at, at + IDS_PER_STATEMENT))
      .execute();
  }
}

/**
 * The customer's owed invoices a new primary method of this kind may collect: card invoices through its gateway,
 * and those that follow the customer.
 */
export async function listOwedInvoicesForNewPrimary(
  db: Db,
  accountId: number,
  customerId: number,
  card: { gatewayId: number } | undefined,
): Promise<CollectableInvoiceRecord[]> {
  const rows = await db
    .selectFrom('invoices')
    .select(COLLECTABLE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where((eb) =>
      eb.or([
        eb('collection_method', 'is', null),
        ...(card
          ? [eb.and([eb('collection_method', '=', 'credit_card'), eb('gateway_id', '=', card.gatewayId)])]
          : []),
      ]),
    )
    .where((eb) => owed(eb))
    .orderBy('id')
    .execute();
  return rows.map(collectableInvoiceFromRow);
}

/** Records the problem the customer was told of (null: none, or solved). */
export async function setCollectionProblem(
  db: Db,
  accountId: number,
  invoiceId: number,
  problem: string | null,
  updatedAt: string,
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ collection_problem: problem, updated_at: updatedAt })
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .execute();
}

export async function setCollectionMethodAndTry(
  db: Db,
  accountId: number,
  invoiceId: number,
  changes: { paymentMethodId: number | null; nextTryDate: string | null; updatedAt: string },
): Promise<void> {
  await db
    .updateTable('invoices')
    .set({
      customer_payment_method_id: changes.paymentMethodId,
      next_try_date: changes.nextTryDate,
      // A new method answers the problem the customer was told of.
      collection_problem: null,
      updated_at: changes.updatedAt,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', invoiceId)
    .execute();
}
