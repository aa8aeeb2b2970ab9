import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { returnWindowEnd } from '../../core/bankingDays.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { addDays } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { noticePaymentCollected } from '../collections/index.ts';
import { getPayment, withLockedCustomer } from '../ledger/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchRecord } from './batch.ts';

/**
 * A debit order's receipt goes once its rail's return window has passed, never before (docs/gateways.md, "Receipts
 * after the return window"): a debit settled early (a Netcash statement's collection, a pain.002's ACSC, a result by
 * hand) may still come back unpaid within the window, and a receipt followed by "Payment … failed" tells the customer
 * the money was safe when it was not. The same for every rail and gateway: a line settled by the window itself has
 * its receipt at once, a line settled before it keeps the day on its row, and the run sends it that day unless the
 * line was returned meanwhile.
 */

/** The first day a receipt of the batch's lines may go: the day after its rail's return window. */
export function receiptDay(batch: BatchRecord): PlainDate {
  return addDays(returnWindowEnd(batch.rail as Rail, batch.actionDate), 1);
}

/**
 * The receipt of a line just settled, in the caller's transaction under the customer's lock: sent now when the
 * window has passed, else kept for its day.
 */
export async function receiptOfSettledLine(
  ctx: ServiceContext,
  batch: BatchRecord,
  paymentId: number,
): Promise<void> {
  const day = receiptDay(batch);
  if (today(ctx) >= day) await noticePaymentCollected(ctx, paymentId);
  else await repo.setReceiptDueOn(ctx.db, ctx.account.id, paymentId, day);
}

/**
 * The receipts whose day has come (the run, each day): a line still settled gets its receipt (and its invoices'
 * `invoice.payment_succeeded`), one returned meanwhile none. Each in its own transaction, taken once however many
 * runs; one that fails is logged and tried again by the next run. How many were sent.
 */
export async function sendDueReceipts(ctx: ServiceContext): Promise<number> {
  let sent = 0;
  for (const line of await repo.listLinesWithReceiptDue(ctx.db, ctx.account.id, today(ctx))) {
    try {
      const receipted = await withLockedCustomer(ctx, line.customerId, async (tctx) => {
        if (!(await repo.claimReceipt(tctx.db, tctx.account.id, line.paymentId))) return false;
        if ((await getPayment(tctx, line.paymentId)).state !== 'settled') return false;
        await noticePaymentCollected(tctx, line.paymentId);
        return true;
      });
      if (receipted) sent += 1;
    } catch (error) {
      ctx.log.error({ err: error, paymentId: line.paymentId }, 'a debit order receipt failed');
    }
  }
  return sent;
}
