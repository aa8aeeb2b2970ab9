import type { ServiceContext } from '../../context.ts';
import { startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import * as repo from './invoiceCollection.repository.ts';

/** The collections module's access to invoices: which are due through a gateway, and their NumTries and NextTryDate. */

export interface CollectableInvoice {
  id: number;
  customerId: number;
  gatewayId: number;
  paymentMethodId: number;
  currencyCode: string;
  numTries: number;
  nextTryDate: string | null;
  dueDate: PlainDate;
  /** What it still owes: its total less what is paid, pending and credited. */
  openMinor: number;
}

function collectableFromRow(row: repo.CollectableInvoiceRow): CollectableInvoice {
  return {
    id: row.id,
    customerId: row.customer_id,
    gatewayId: row.gateway_id!,
    paymentMethodId: row.customer_payment_method_id!,
    currencyCode: row.currency_code,
    numTries: row.num_tries,
    nextTryDate: row.next_try_date,
    dueDate: row.due_date,
    openMinor: row.total_minor - row.paid_actual_minor - row.paid_pending_minor - row.negative_adjs_minor,
  };
}

/**
 * Invoices collected by `method` to take now, by id: cards to charge (their first try on their due date, `byDate`
 * today), or debit orders to put in a batch (due by `byDate`, the earliest action date a batch submitted now can
 * have); retries when scheduled by `by`.
 */
export async function listInvoicesDue(
  ctx: ServiceContext,
  method: 'credit_card' | 'debit_order',
  by: string,
  byDate: PlainDate,
  limit: number,
  afterId = 0,
): Promise<CollectableInvoice[]> {
  const rows = await repo.listInvoicesDue(ctx.db, ctx.account.id, method, by, byDate, { limit, afterId });
  return rows.map(collectableFromRow);
}

/**
 * The invoice if it is to be collected by `now` (the test of listInvoicesDue), as it stands: read again under
 * the customer's lock before an attempt, since a list taken earlier may be stale (another process's attempt
 * recorded since, a new card, a payment).
 */
export async function findCardInvoiceDue(
  ctx: ServiceContext,
  invoiceId: number,
  now: string,
  today: string,
): Promise<CollectableInvoice | undefined> {
  const [row] = await repo.listInvoicesDue(ctx.db, ctx.account.id, 'credit_card', now, today, {
    onlyId: invoiceId,
  });
  return row && collectableFromRow(row);
}

/** Which card the invoice is collected from now (a new primary card may have replaced the one an attempt used). */
export async function collectionMethodOf(ctx: ServiceContext, invoiceId: number): Promise<number | null> {
  return (
    (await repo.findCollectableInvoice(ctx.db, ctx.account.id, invoiceId))?.customer_payment_method_id ?? null
  );
}

/**
 * Records a collection attempt's effect on the invoice (design note collections.md §4.3): NumTries counts the
 * attempts that reached a gateway; NextTryDate is the next automatic attempt, or null (in flight, stopped, paid).
 */
export function setCollectionSchedule(
  ctx: ServiceContext,
  invoiceId: number,
  changes: { addTry: boolean; nextTryDate: string | null },
): Promise<void> {
  return repo.setCollectionSchedule(ctx.db, ctx.account.id, invoiceId, {
    ...changes,
    updatedAt: ctx.clock.now().toISOString(),
  });
}

/** The customer's owed card invoices collected through the gateway (a new card of the customer's is at it). */
export async function listOwedCardInvoicesOfCustomer(
  ctx: ServiceContext,
  customerId: number,
  gatewayId: number,
): Promise<CollectableInvoice[]> {
  return (await repo.listOwedCardInvoicesOfCustomer(ctx.db, ctx.account.id, customerId, gatewayId)).map(
    collectableFromRow,
  );
}

/** Moves an invoice's collection to another card of its customer, and sets when it is tried next. */
export function setCollectionMethodAndTry(
  ctx: ServiceContext,
  invoiceId: number,
  changes: { paymentMethodId: number; nextTryDate: string | null },
): Promise<void> {
  return repo.setCollectionMethodAndTry(ctx.db, ctx.account.id, invoiceId, {
    ...changes,
    updatedAt: ctx.clock.now().toISOString(),
  });
}

/**
 * NextTryDate of an invoice as it is issued (design note §4.3: before the first attempt it is that attempt): the
 * start of its due date in the account's time zone for an issued card invoice with a gateway and a method; null
 * otherwise (a draft, or money collected another way).
 */
export function firstCollectionTry(
  invoice: {
    is_draft: boolean;
    collection_method: string | null;
    gateway_id: number | null;
    customer_payment_method_id: number | null;
    due_date: PlainDate;
  },
  timeZone: string,
): string | null {
  const automatic =
    invoice.collection_method === 'credit_card' &&
    invoice.gateway_id !== null &&
    invoice.customer_payment_method_id !== null;
  return automatic && !invoice.is_draft ? startOfDate(invoice.due_date, timeZone) : null;
}
