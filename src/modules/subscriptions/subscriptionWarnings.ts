import type { PlainDate } from '../../core/calendar.ts';
import { boundary, periodIndexAt } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';

/**
 * Something a request did that the business may not have meant, told on the answer rather than refused
 * (docs/spec-decisions.md, "Backdated subscriptions"): `Warnings` on the subscription's 201 and its preview.
 */
export interface SubscriptionWarning {
  code: 'catch_up';
  message: string;
}

/**
 * A subscription starting more than one period before today is billed for every period up to today at once: a
 * wrong year (2025 for 2026) would bill a customer a year of catch-up. `firstBilled` is where billing begins
 * (the start, or a trial's end).
 */
export function catchUpWarning(
  startDate: PlainDate,
  firstBilled: PlainDate,
  term: Term,
  today: PlainDate,
): SubscriptionWarning | undefined {
  if (boundary(startDate, term, 1) >= today || firstBilled > today) return undefined;
  const periods = periodIndexAt(firstBilled, term, today) + 1;
  return {
    code: 'catch_up',
    message: `starts ${startDate}, more than one period ago: ${periods} ${periods === 1 ? 'period' : 'periods'} will be billed now`,
  };
}
