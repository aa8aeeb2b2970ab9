import { addDays, maxDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { planBilling } from './subscriptionBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import type {
  BillingPlan,
  PlannedInvoice,
  SubscriptionTimeline,
  UnbilledUsage,
} from './subscriptionBilling.ts';

/**
 * The next invoice a subscription will get, as the bill run will make it: the first planned invoice that carries
 * a line. The bill run also wakes for invoices without a line (a free trial: no trial fee, no setup fee, no
 * usage due), records their period and makes no invoice; so the next invoice is not necessarily the next date
 * the bill run looks at the subscription, and is found by planning on past those.
 */

function lastEventsDate(record: SubscriptionTimeline): PlainDate | null {
  const stop = record.eventsUnbilledAtStop ?? null;
  return stop === null ? null : maxDate(stop, record.createdOn);
}

/** The record as the bill run stores it after carrying out `plan` (see billRows in the subscriptions module). */
export function timelineAfter(timeline: SubscriptionTimeline, plan: BillingPlan): SubscriptionTimeline {
  return {
    ...timeline,
    periodCount: plan.next.periodCount,
    nextRenewDate: plan.next.nextRenewDate,
    setupBilled: plan.next.setupBilled,
    anchorDate: plan.next.anchorDate,
    terms: plan.next.terms,
    pendingChange: plan.next.pendingChangeApplied ? null : timeline.pendingChange,
  };
}

/**
 * Only the first periods can be invoiced without a line (a trial), and each round bills at least one invoice,
 * so a few rounds always reach an invoice with a line or the end; the bound only guards against a broken core.
 */
export const MAX_ROUNDS = 16;

/**
 * The first invoice with a line that billing the record will make, with the usage recorded so far; null when
 * none is coming (the subscription has ended and nothing is left to bill). Independent of today: a period's
 * invoice date and the usage it takes depend only on the record, so the bill run makes this invoice whichever
 * day it runs on or after its date. Throws BillingInvariantError on a broken record, as planBilling does.
 */
export function upcomingInvoiceOf(
  timeline: SubscriptionTimeline,
  usage: readonly UnbilledUsage[],
  maxRounds = MAX_ROUNDS,
): PlannedInvoice | null {
  let record = timeline;
  let open = usage;
  for (let round = 0; round < maxRounds; round += 1) {
    // No invoice is dated before the day of creation: planned as of the day before, nothing is due and the
    // plan says when its first invoice is dated.
    const nextDate = planBilling(record, open, addDays(record.createdOn, -1)).next.nextInvDate;
    if (nextDate === null) return null;
    const plan = planBilling(record, open, nextDate);
    const withLine = plan.invoices.find((invoice) => invoice.lines.length > 0);
    if (withLine) return withLine;
    // The last invoice of usage read from events: its lines are read from the events by the caller, through its date.
    // So is the final correction invoice (finalCorrectionOn): made only if late events left lines to bill.
    if (
      plan.invoices.length === 0 &&
      (nextDate === lastEventsDate(record) || nextDate === record.finalCorrectionOn)
    ) {
      return { invoiceDate: nextDate, lines: [], usageIds: [], period: null };
    }
    const billed = new Set(plan.invoices.flatMap((invoice) => invoice.usageIds));
    open = open.filter((u) => !billed.has(u.usageId));
    record = timelineAfter(record, plan);
  }
  // A BillingInvariantError, as for any record the core cannot plan: readers fall back to the stored dates
  // (a list of subscriptions does not fail for one record) and the upcoming-invoice route answers a problem.
  throw new BillingInvariantError(`no invoice with a line within ${maxRounds} rounds of planning`);
}
