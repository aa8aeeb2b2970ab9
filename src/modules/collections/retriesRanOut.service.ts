import type { ServiceContext } from '../../context.ts';
import { setCustomerSuspended } from '../customers/index.ts';
import { getInvoice } from '../invoicing/index.ts';
import { cancelSubscription, liveSubscriptionIdsOfCustomer } from '../subscriptions/index.ts';
import { noticeCollectionFailed } from './customerNotices.ts';
import type { CollectionFailure } from './customerNotices.ts';
import { amountText, reasonSentence } from './noticeWords.ts';
import { queueStaffMail } from './staffNotices.ts';

/**
 * What follows when an invoice's retries run out (docs/design/collections.md, "Retries"), for a card's charges and
 * a debit order's presentations alike: the customer told, the staff told, and the account's actions taken.
 */

export interface UncollectedInvoice {
  customerId: number;
  invoiceId: number;
  currencyCode: string;
  amountMinor: number;
}

/**
 * The last failure told (docs/gateways.md, "When a charge fails, and when retries run out"): the customer gets that
 * failure's one notice (noticeCollectionFailed), and the account's staff are told which invoice now waits on a
 * person. `exhausted` says why no try follows: true only when the schedule's tries were used up (the customer reads
 * that we tried as often as we can, the staff that retries ran out); false when the reason itself stops collection
 * the first time (a hard decline, a return that cannot be presented again: the notice says why, the staff read
 * that it cannot be retried). Queued in the transaction that records the failure; a caller makes this call instead
 * of noticeCollectionFailed for that failure, never both.
 */
export async function noticeRetriesRanOut(
  ctx: ServiceContext,
  failure: CollectionFailure & { exhausted: boolean },
): Promise<void> {
  const customerTold = await noticeCollectionFailed(ctx, { ...failure, nextTryDate: null });
  const invoice = await getInvoice(ctx, failure.invoiceId);
  const from = failure.from ?? 'card';
  const customer = [invoice.customer.name, invoice.customer.lastName].filter(Boolean).join(' ');
  const failed = from === 'card' ? 'decline' : 'return';
  const queued = await queueStaffMail(ctx, {
    subject: failure.exhausted
      ? `Collection of invoice ${invoice.invoiceNum} stopped: retries ran out`
      : `Collection of invoice ${invoice.invoiceNum} stopped: the ${failed} cannot be retried`,
    blocks: [
      {
        paragraph: `We could not collect ${amountText(failure.currencyCode, failure.amountMinor)} for invoice ${invoice.invoiceNum} of ${customer} (customer ${failure.customerId}), and will not try again automatically.`,
      },
      {
        paragraph: `${failure.exhausted ? 'The last' : 'The'} ${failed}: ${reasonSentence(failure.reason, from)}`,
      },
      {
        paragraph: customerTold
          ? 'The customer was e-mailed a link to pay the invoice.'
          : 'The customer was not e-mailed (the account does not send failure notices, or the customer has no address).',
      },
    ],
  });
  if (queued) ctx.mailQueued();
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
