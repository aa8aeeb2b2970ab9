import type { ServiceContext } from '../../context.ts';
import * as repo from './invoiceCollection.repository.ts';

/** The collections module's access to invoices: which are due through a gateway, and their NumTries and NextTryDate. */

export interface CollectableInvoice {
  id: number;
  customerId: number;
  gatewayId: number;
  paymentMethodId: number;
  currencyCode: string;
  numTries: number;
}

/** Card invoices to collect by `now` (their first try on their due date, retries when scheduled), by id. */
export async function listCardInvoicesDue(
  ctx: ServiceContext,
  now: string,
  today: string,
  limit: number,
  afterId = 0,
): Promise<CollectableInvoice[]> {
  const rows = await repo.listCardInvoicesDue(ctx.db, ctx.account.id, now, today, limit, afterId);
  return rows.map((row) => ({
    id: row.id,
    customerId: row.customer_id,
    gatewayId: row.gateway_id!,
    paymentMethodId: row.customer_payment_method_id!,
    currencyCode: row.currency_code,
    numTries: row.num_tries,
  }));
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
