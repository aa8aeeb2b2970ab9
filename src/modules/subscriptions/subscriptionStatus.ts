import type { PlainDate } from '../../core/calendar.ts';
import { boundary } from '../../core/periods.ts';
import type { SubscriptionTimeline } from './subscriptionBilling.ts';
import { isPausedOn } from './subscriptionPause.ts';

/** A subscription's state on a day (spec, States: comp_Status), from its dates; pure. */

export type SubscriptionStatus =
  | 'Future'
  | 'Trial'
  | 'Active'
  | 'Cancelled'
  | 'Expired'
  | 'Paused'
  // Started when paid: derived from the record, not the dates (subscriptionActivation.ts).
  | 'Incomplete'
  | 'IncompleteExpired';

/** Spec, States (comp_Status), first match wins, as of `today`. */
export function subscriptionStatus(
  timeline: Pick<SubscriptionTimeline, 'startDate' | 'endDate' | 'trialEndDate' | 'cancelDate'> &
    Partial<Pick<SubscriptionTimeline, 'pause'>>,
  today: PlainDate,
): SubscriptionStatus {
  if (timeline.cancelDate && timeline.cancelDate <= today) return 'Cancelled';
  if (timeline.endDate && timeline.endDate <= today) return 'Expired';
  if (isPausedOn(timeline.pause, today)) return 'Paused';
  if (timeline.startDate > today) return 'Future';
  if (timeline.trialEndDate && today < timeline.trialEndDate) return 'Trial';
  return 'Active';
}

/** The trial's end: the start plus TrialPeriod days or months; null without a trial. */
export function trialEndOf(
  startDate: PlainDate,
  trialPeriod: number,
  trialPeriodType: string,
): PlainDate | null {
  if (trialPeriod <= 0) return null;
  return boundary(
    startDate,
    { count: trialPeriod, unit: trialPeriodType === 'months' ? 'months' : 'days' },
    1,
  );
}
