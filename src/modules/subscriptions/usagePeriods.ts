import { maxDate, minDate } from '../../core/calendar.ts';
import { isPausedOn, skipPause } from './subscriptionPause.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { boundary, isValidTerm, periodIndexAt } from '../../core/periods.ts';
import { anchorAfter, anchorOnChange, periodStartingAt } from './subscriptionBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import type { SubscriptionTimeline } from './subscriptionBilling.ts';

export interface UsagePeriod {
  start: PlainDate;
  end: PlainDate;
}

/** A walk that needs more steps than this has met a record no bill run could follow either. */
const MAX_STEPS = 1000;

/**
 * The usage period that usage recorded on `date` belongs to: the subscription's billing period holding that day
 * (usage is billed in arrears, per billing period; see src/modules/subscriptions/subscriptionBilling.ts). Before the start, the
 * first period; from the day billing stops (EndDate or cancellation), none.
 *
 * `billed` is the billed period holding the day, when there is one (from subscription_periods): periods are
 * billed in advance, up to numDaysBeforeToInv days early, so the last billed period may not be today's. Past
 * the billed periods the timeline is walked as the bill run will walk it, with the same core function
 * (`periodStartingAt`) and the same rule for a scheduled change. Throws BillingInvariantError on a broken record.
 */
export function usagePeriodAt(
  timeline: SubscriptionTimeline,
  billed: UsagePeriod | null,
  date: PlainDate,
): UsagePeriod | null {
  const stopAt = [timeline.cancelDate, timeline.endDate].filter((d): d is PlainDate => d !== null).sort()[0];
  if (stopAt !== undefined && date >= stopAt) return null;
  // No period runs while paused (subscriptionPause.ts): usage of those days falls in none.
  if (isPausedOn(timeline.pause, date)) return null;
  const day = maxDate(date, timeline.startDate);
  if (billed && billed.start <= day && day < billed.end) return billed;

  let start = timeline.nextRenewDate ?? timeline.startDate;
  // The day lies in a billed period that the caller did not find: the record and its periods disagree.
  if (day < start) return null;
  let terms = timeline.terms;
  let anchor = timeline.anchorDate;
  let changeApplied = false;
  const change = timeline.pendingChange;
  for (let step = 0; step < MAX_STEPS; step += 1) {
    if (change && !changeApplied && change.effectiveDate <= start) {
      anchor = anchorOnChange(terms.term, change.terms.term, anchor, start, timeline.billCycleDay);
      terms = change.terms;
      changeApplied = true;
    }
    if (!isValidTerm(terms.term)) {
      throw new BillingInvariantError(`invalid term ${terms.term.count} ${terms.term.unit}`);
    }
    const moved = { nextStart: start, anchorDate: anchor };
    if (skipPause(moved, timeline.pause)) {
      ({ nextStart: start, anchorDate: anchor } = moved);
      continue;
    }
    const period = periodStartingAt(timeline, terms, anchor, start);
    if (period.end <= period.start) {
      throw new BillingInvariantError(`empty period ${period.start} to ${period.end}`);
    }
    if (day < period.end) return { start: period.start, end: period.end };
    anchor = anchorAfter(period, timeline, anchor, terms.term);
    if (timeline.endDate && period.end >= timeline.endDate) return null;
    start = period.end;
    // Whole terms need no walking: once past the trial and the pro-rata stub, jump to the last boundary on or
    // before the day, but never past the first boundary at which a scheduled change takes effect.
    const inTrial = timeline.trialEndDate !== null && start < timeline.trialEndDate;
    const inStub =
      timeline.isProRata && timeline.firstProrataSyncDate !== null && start < timeline.firstProrataSyncDate;
    if (!inTrial && !inStub) {
      const changeLimit = change && !changeApplied ? minDate(day, change.effectiveDate) : day;
      // Nor past a pause's start: the periods after it follow the resume's cycle.
      const pauseStart = timeline.pause && start < timeline.pause.start ? timeline.pause.start : null;
      const limit = pauseStart === null ? changeLimit : minDate(changeLimit, pauseStart);
      const jump = boundary(anchor, terms.term, periodIndexAt(anchor, terms.term, limit));
      if (jump > start) start = jump;
    }
  }
  throw new BillingInvariantError(`no usage period holds ${date} within ${MAX_STEPS} periods`);
}
