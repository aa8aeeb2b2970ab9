import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { ConflictError } from '../../errors.ts';
import { deleteInvoice } from '../invoicing/index.ts';
import * as repo from './subscription.repository.ts';
import * as activationRepo from './subscriptionActivation.repository.ts';
import { isAwaitingPayment } from './subscriptionActivation.ts';
import type { Subscription } from './subscription.ts';
import { withSubscriptionHeld } from './subscriptionEditing.ts';

/**
 * Subscriptions that start when paid (docs/subscriptions.md, "Subscriptions that start when paid"): the two moves
 * out of Incomplete. A payment that makes the first invoice Paid activates the subscription (the ledger's
 * invoices-paid port, plugged in by src/modulePorts.ts); the bill run expires one still unpaid on its
 * IncompleteExpiryDate, cancelling its invoice. Each move is made under the subscription's hold and checked again
 * there, so that a payment and an expiry racing each other move it once.
 */

/**
 * Told, in the allocating transaction, of invoices that became Paid: the incomplete subscriptions billed on them
 * become active from today (the payment's day, in the account's zone), or from their StartDate when that is later.
 * Their events (`subscription.activated`, or `subscription.updated` for a start still ahead) are the status move's
 * (subscriptionEvents.ts).
 */
export async function activatePaidSubscriptions(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<void> {
  const waiting = await activationRepo.listWaitingOnInvoices(ctx.db, ctx.account.id, invoiceIds);
  for (const subscriptionId of waiting) {
    await withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, on) => {
      if (!isAwaitingPayment(row)) return;
      await repo.updateSubscription(tctx.db, tctx.account.id, row.id, {
        activatedOn: on,
        updatedAt: tctx.clock.now().toISOString(),
      });
    });
  }
}

/** Incomplete subscriptions looked at in one page of the expiry step. */
const EXPIRY_PAGE = 100;

/**
 * The bill run's step for subscriptions still unpaid on their IncompleteExpiryDate: each becomes IncompleteExpired
 * with its first invoice cancelled (DELETE /v1/invoices/{id}'s use case) and nothing ever billed again. One whose
 * invoice has money allocated to it (a debit order still pending, a part paid) is left incomplete: the money decides,
 * and the next run looks again. Returns how many expired.
 */
export async function expireIncompleteSubscriptions(ctx: ServiceContext, on: PlainDate): Promise<number> {
  let expired = 0;
  for (let afterId = 0; ;) {
    const ids = await activationRepo.listWaitingUntil(ctx.db, ctx.account.id, on, {
      afterId,
      limit: EXPIRY_PAGE,
    });
    for (const subscriptionId of ids) {
      if (await expireIncompleteSubscription(ctx, subscriptionId)) expired += 1;
    }
    if (ids.length < EXPIRY_PAGE) return expired;
    afterId = ids.at(-1)!;
  }
}

async function expireIncompleteSubscription(ctx: ServiceContext, subscriptionId: number): Promise<boolean> {
  try {
    return await withSubscriptionHeld(
      ctx,
      subscriptionId,
      async (tctx, row, on) => {
        if (!isAwaitingPayment(row) || row.incompleteUntil! > on) return false;
        for (const invoiceId of await activationRepo.listInvoiceIdsOfPeriods(
          tctx.db,
          tctx.account.id,
          row.id,
        )) {
          await cancelUnlessCancelled(tctx, invoiceId);
        }
        await repo.updateSubscription(tctx.db, tctx.account.id, row.id, {
          incompleteExpiredOn: on,
          nextInvDate: null,
          updatedAt: tctx.clock.now().toISOString(),
        });
        return true;
      },
      'subscription.incomplete_expired',
    );
  } catch (error) {
    if (!(error instanceof ConflictError) || error.code !== 'invoice_has_allocations') throw error;
    // Rolled back whole: money stands on the invoice (docs/subscriptions.md says why it is left incomplete).
    ctx.log.info({ subscriptionId }, 'an incomplete subscription’s invoice has money on it; not expired yet');
    return false;
  }
}

/** Cancels the invoice; one cancelled already (by hand, through the API) stays as it is. */
export async function cancelUnlessCancelled(ctx: ServiceContext, invoiceId: number): Promise<void> {
  try {
    await deleteInvoice(ctx, invoiceId);
  } catch (error) {
    if (error instanceof ConflictError && error.code === 'invoice_cancelled') return;
    throw error;
  }
}

/** An incomplete subscription as the pages that pay or list it show it. */
export interface AwaitingPayment {
  subscriptionId: number;
  packageName: string;
  startDate: PlainDate;
  /** IncompleteExpiryDate: the day it expires unpaid. */
  incompleteUntil: PlainDate;
}

/**
 * The incomplete subscription the invoice is the first invoice of, if any: what paying it starts (the pay page,
 * docs/hosted-pages.md, "Paying one invoice").
 */
export async function subscriptionAwaitingInvoice(
  ctx: ServiceContext,
  invoiceId: number,
): Promise<AwaitingPayment | undefined> {
  const [subscriptionId] = await activationRepo.listWaitingOnInvoices(ctx.db, ctx.account.id, [invoiceId]);
  if (subscriptionId === undefined) return undefined;
  const view = await repo.findSubscriptionView(ctx.db, ctx.account.id, subscriptionId);
  if (!view || !isAwaitingPayment(view)) return undefined;
  return {
    subscriptionId,
    packageName: view.packageName,
    startDate: view.startDate,
    incompleteUntil: view.incompleteUntil!,
  };
}

/**
 * The first invoice an incomplete subscription waits on, and the day it expires unpaid; undefined for any other
 * subscription (the portal's list links it, docs/portal.md).
 */
export async function invoiceAwaitedBy(
  ctx: ServiceContext,
  subscription: Pick<Subscription, 'id' | 'status' | 'incompleteUntil'>,
): Promise<{ invoiceId: number; incompleteUntil: PlainDate } | undefined> {
  if (subscription.status !== 'Incomplete' || subscription.incompleteUntil === null) return undefined;
  const [invoiceId] = await activationRepo.listInvoiceIdsOfPeriods(ctx.db, ctx.account.id, subscription.id);
  return invoiceId === undefined ? undefined : { invoiceId, incompleteUntil: subscription.incompleteUntil };
}
