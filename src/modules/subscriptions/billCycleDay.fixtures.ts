import { changeBillCycle, cycleAnchorThrough, firstBillCycleSync } from './billCycleDay.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import { GOLD, subscription } from './subscriptionBilling.fixtures.ts';
import { planBilling } from './subscriptionBilling.ts';
import type { SubscriptionTimeline } from './subscriptionBilling.ts';

/* Builders shared by the billCycleDay.*.test.ts files: subscriptions as the service records them on a day. */

export const MONTHLY: Term = { count: 1, unit: 'months' };

/**
 * A subscription created on `start` for a customer whose bill-cycle day is `day`, as createSubscription records
 * it: the first period pro-rated up to the first day-date after the start (or the trial's end), the anchor on
 * the day itself.
 */
export function onDay(
  start: PlainDate,
  day: number,
  options: { price?: string; term?: Term; trialEndDate?: PlainDate | null } = {},
): SubscriptionTimeline {
  const term = options.term ?? MONTHLY;
  const trialEndDate = options.trialEndDate ?? null;
  const sync = firstBillCycleSync(trialEndDate ?? start, day, term);
  const anchorDate = cycleAnchorThrough(trialEndDate ?? sync ?? start, day, term);
  return subscription({
    startDate: start,
    createdOn: start,
    trialEndDate,
    isProRata: sync !== null,
    firstProrataSyncDate: sync,
    anchorDate,
    billCycleDay: day,
    terms: { ...GOLD, term, chargePrice: options.price ?? GOLD.chargePrice },
  });
}

/**
 * The subscription after PUT .../changebillcycleday once billed up to `billedTo` (the record the bill run left):
 * the move takes effect at the end of the time already billed.
 */
export function movedAfterBilling(
  timeline: SubscriptionTimeline,
  billedTo: PlainDate,
  day: number,
): SubscriptionTimeline {
  const { next } = planBilling(timeline, [], billedTo);
  const billed = {
    ...timeline,
    periodCount: next.periodCount,
    nextRenewDate: next.nextRenewDate,
    setupBilled: next.setupBilled,
    anchorDate: next.anchorDate,
  };
  const change = changeBillCycle({ ...billed, term: timeline.terms.term }, day);
  if (change.kind === 'first') {
    const { kind: _, ...first } = change;
    return { ...billed, ...first, billCycleDay: day };
  }
  return { ...billed, anchorDate: change.anchorDate, offCycleStart: change.from, billCycleDay: day };
}

/** [start, end, kind, amountMinor] of each period planned up to `today`. */
export function periodsUpTo(timeline: SubscriptionTimeline, today: PlainDate) {
  return planBilling(timeline, [], today).invoices.flatMap((invoice) =>
    invoice.period
      ? [[invoice.period.start, invoice.period.end, invoice.period.kind, invoice.period.amountMinor]]
      : [],
  );
}
