import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { ConflictError } from '../../errors.ts';
import * as repo from './subscription.repository.ts';
import { cutPeriod } from './subscriptionChanges.repository.ts';
import { cancelUnlessCancelled } from './subscriptionActivation.service.ts';
import * as resumeRepo from './subscriptionResumePayment.repository.ts';
import { awaitsResumptionPayment } from './subscriptionPause.ts';
import { noticePause } from './pauseNotice.ts';
import { withSubscriptionHeld } from './subscriptionEditing.ts';

/**
 * A resume that waits for its invoice's payment (docs/subscriptions.md, "Resuming when paid"; Stripe's
 * resume_on_payment_success): the two moves out of the wait, as a subscription that starts when paid has them
 * (subscriptionActivation.service.ts). A payment that makes the resumption invoice Paid resumes the subscription
 * that day (the ledger's invoices-paid port, plugged in by src/modulePorts.ts beside the activation); the bill
 * run voids the invoice of one still unpaid on its ResumePayByDate and leaves it paused until resumed. Each move is
 * made under the subscription's hold and checked again there.
 */

/**
 * Told, in the allocating transaction, of invoices that became Paid: the subscriptions whose resumption invoice is
 * among them resume today (the payment's day, in the account's zone). The period invoiced is kept as it was sold
 * (docs/spec-decisions.md). `subscription.resumed` is the status move's (subscriptionEvents.ts).
 */
export async function resumePaidSubscriptions(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<void> {
  const waiting = await resumeRepo.listResumesWaitingOnInvoices(ctx.db, ctx.account.id, invoiceIds);
  for (const subscriptionId of waiting) {
    await withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, on) => {
      if (!awaitsResumptionPayment(row, on)) return;
      await repo.updateSubscription(tctx.db, tctx.account.id, row.id, {
        resumePaidOn: on,
        updatedAt: tctx.clock.now().toISOString(),
      });
      // "Has resumed from" the payment's day.
      await noticePause(tctx, { ...row, resumeDate: on }, 'resumed');
    });
  }
}

/** Waiting subscriptions looked at in one page of the expiry step. */
const EXPIRY_PAGE = 100;

/**
 * The bill run's step for resumes still unpaid on their ResumePayByDate: the resumption invoice is cancelled
 * (DELETE /v1/invoices/{id}'s use case) and the subscription stays paused, with no resume date, until resumed again
 * (`subscription.resume_expired`). One whose invoice has money allocated to it (a debit still pending, a part paid)
 * is left waiting: the money decides, and the next run looks again. Returns how many expired.
 */
export async function expireUnpaidResumptions(ctx: ServiceContext, on: PlainDate): Promise<number> {
  let expired = 0;
  for (let afterId = 0; ;) {
    const ids = await resumeRepo.listResumesUnpaidBy(ctx.db, ctx.account.id, on, {
      afterId,
      limit: EXPIRY_PAGE,
    });
    for (const subscriptionId of ids) {
      if (await expireUnpaidResumption(ctx, subscriptionId)) expired += 1;
    }
    if (ids.length < EXPIRY_PAGE) return expired;
    afterId = ids.at(-1)!;
  }
}

async function expireUnpaidResumption(ctx: ServiceContext, subscriptionId: number): Promise<boolean> {
  try {
    return await withSubscriptionHeld(
      ctx,
      subscriptionId,
      async (tctx, row, on) => {
        if (!awaitsResumptionPayment(row, on) || row.resumePayBy! > on) return false;
        const resumeDate = row.resumeDate!;
        const periods = await resumeRepo.listPeriodsFrom(tctx.db, tctx.account.id, row.id, resumeDate);
        for (const invoiceId of new Set(
          periods.flatMap((p) => (p.invoiceId === null ? [] : [p.invoiceId])),
        )) {
          await cancelUnlessCancelled(tctx, invoiceId);
        }
        // The voided time is no billed time: its periods shrink to nothing, so that no later cut credits them.
        for (const period of periods) {
          await cutPeriod(tctx.db, tctx.account.id, row.id, {
            periodNo: period.periodNo,
            start: resumeDate,
            end: resumeDate,
          });
        }
        await repo.updateSubscription(tctx.db, tctx.account.id, row.id, {
          resumeDate: null,
          resumePayBy: null,
          resumePaidOn: null,
          // Billing would go on from the resume day, were the pause to end: a later resume moves it past the pause.
          nextRenewDate: resumeDate,
          nextInvDate: null,
          updatedAt: tctx.clock.now().toISOString(),
        });
        return true;
      },
      'subscription.resume_expired',
    );
  } catch (error) {
    if (!(error instanceof ConflictError) || error.code !== 'invoice_has_allocations') throw error;
    // Rolled back whole: money stands on the invoice (docs/subscriptions.md says why it is left waiting).
    ctx.log.info({ subscriptionId }, 'a resumption invoice has money on it; not voided yet');
    return false;
  }
}
