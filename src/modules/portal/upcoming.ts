import type { ServiceContext } from '../../context.ts';
import { DomainError } from '../../errors.ts';
import { previewInvoice } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import { liveSubscriptionIdsOfCustomer, upcomingInvoice } from '../subscriptions/index.ts';

/** The next invoice of one subscription, priced as the bill run would make it; undefined when none is coming. */
export async function nextInvoiceOfSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<Invoice | undefined> {
  let upcoming;
  try {
    upcoming = await upcomingInvoice(ctx, subscriptionId);
  } catch (error) {
    // A subscription the bill run cannot plan (it parks it) has no next invoice to show.
    if (error instanceof DomainError) return undefined;
    throw error;
  }
  return upcoming ? previewInvoice(ctx, upcoming) : undefined;
}

/** The earliest invoice the customer's live subscriptions will get, priced as the bill run would. */
export async function nextInvoiceOfCustomer(
  ctx: ServiceContext,
  customerId: number,
): Promise<Invoice | undefined> {
  let next: Invoice | undefined;
  for (const subscriptionId of await liveSubscriptionIdsOfCustomer(ctx, customerId)) {
    const priced = await nextInvoiceOfSubscription(ctx, subscriptionId);
    if (priced && (!next || priced.invoiceDate < next.invoiceDate)) next = priced;
  }
  return next;
}
