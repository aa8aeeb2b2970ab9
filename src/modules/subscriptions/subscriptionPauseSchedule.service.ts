/**
 * Writing a pause's dates with what they make due (docs/subscriptions.md, "Pause and resume"), shared by the pause
 * and resume use cases and by DELETE .../futurechanges, which withdraws a scheduled pause or resume.
 */
import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { billSubscriptionInTransaction } from './subscriptionBilling.service.ts';
import { scheduledInvoiceDate, timelineFor } from './subscriptionEditing.ts';
import { pauseOf } from './subscriptionPause.ts';
import * as repo from './subscription.repository.ts';
import type { SubscriptionChanges, SubscriptionRecord } from './subscription.ts';

/** Writes the pause's fields with the next invoice date they make, and bills at once what they made due. */
export async function reschedule(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  changes: SubscriptionChanges,
  day: PlainDate,
): Promise<number[]> {
  const changed = { ...row, ...changes };
  const unbilled = await repo.listUnbilledUsageOf(ctx.db, ctx.account.id, row.id);
  await repo.updateSubscription(ctx.db, ctx.account.id, row.id, {
    ...changes,
    nextInvDate: scheduledInvoiceDate(timelineFor(ctx, changed), unbilled, day),
    updatedAt: nowInstant(ctx),
  });
  return billSubscriptionInTransaction(ctx, row.id, day);
}

/**
 * A scheduled pause withdrawn: billing goes on where it would have stopped. Under `prorata` the billed period was
 * cut at the pause's start, off the cycle: that day starts a stub to the cycle's boundary, as after a change made
 * now that kept the anchor (offCycleStart).
 */
export function withdrawnPause(row: SubscriptionRecord): SubscriptionChanges {
  return {
    pauseDate: null,
    resumeDate: null,
    pauseCredit: null,
    resumeBillingAnchor: null,
    resumePayBy: null,
    resumePaidOn: null,
    ...(row.pauseCredit === 'prorata' ? { offCycleStart: row.pauseDate } : {}),
  };
}

/**
 * DELETE .../futurechanges and a pause: a pause not begun is withdrawn; a resume scheduled for a paused subscription
 * is withdrawn, leaving it paused until resumed. Nothing when neither is scheduled.
 */
export async function withdrawScheduledPause(
  ctx: ServiceContext,
  subscriptionId: number,
  day: PlainDate,
): Promise<void> {
  const row = await repo.findSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId);
  const pause = row && pauseOf(row);
  if (!row || !pause) return;
  if (pause.start > day) await reschedule(ctx, row, withdrawnPause(row), day);
  else if (pause.resume !== null && pause.resume > day)
    await reschedule(ctx, row, { resumeDate: null, resumePayBy: null }, day);
}
