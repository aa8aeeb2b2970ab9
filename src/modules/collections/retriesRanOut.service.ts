import type { ServiceContext } from '../../context.ts';
import { setCustomerSuspended } from '../customers/index.ts';
import { getInvoice } from '../invoicing/index.ts';
import { cancelSubscription, liveSubscriptionIdsOfCustomer } from '../subscriptions/index.ts';
import { retriesRanOutMail } from './collectionMails.ts';
import type { CollectedFrom } from './collectionMails.ts';
import { queueCustomerMails } from './customerMails.ts';

/**
 * What follows when an invoice's retries run out (docs/design/collections.md, "Retries"), for a card's charges and
 * a debit order's presentations alike: the customer told, and the account's actions taken.
 */

export interface UncollectedInvoice {
  customerId: number;
  invoiceId: number;
  currencyCode: string;
  amountMinor: number;
}

/**
 * Tells the customer that its invoice could not be collected (retriesRanOutMail): one message to its Email (copied
 * to EmailCC) and one to each active contact, queued in the transaction that records the last failure.
 */
export async function queueRetriesRanOutMails(
  ctx: ServiceContext,
  uncollected: UncollectedInvoice,
  reason: string,
  from: CollectedFrom,
): Promise<void> {
  const invoice = await getInvoice(ctx, uncollected.invoiceId);
  await queueCustomerMails(
    ctx,
    uncollected.customerId,
    retriesRanOutMail(
      ctx.account.name,
      {
        invoiceNum: invoice.invoiceNum,
        currencyCode: uncollected.currencyCode,
        amountMinor: uncollected.amountMinor,
      },
      reason,
      from,
    ),
  );
}

/**
 * The account's actions when retries run out (PUT /v1/account; off by default): suspend the customer, cancel its
 * subscriptions at the end of their period. Each is its own change with its own event; one that fails (a
 * subscription already ended) does not stop the others.
 */
export async function afterRetriesRanOut(ctx: ServiceContext, customerId: number): Promise<void> {
  const { suspendCustomer, cancelSubscriptions } = ctx.account.dunning;
  if (suspendCustomer) await setCustomerSuspended(ctx, customerId, true);
  if (!cancelSubscriptions) return;
  for (const subscriptionId of await liveSubscriptionIdsOfCustomer(ctx, customerId)) {
    try {
      await cancelSubscription(ctx, subscriptionId, 'renewal');
    } catch (error) {
      ctx.log.warn(
        { err: error, subscriptionId },
        'cancelling a subscription after failed collection failed',
      );
    }
  }
}
