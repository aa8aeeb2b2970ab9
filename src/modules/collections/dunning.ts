import { addDays, dateAt, startOfDate } from '../../core/calendar.ts';
import type { RetryClass } from '../gateways/index.ts';

/**
 * What a failed collection attempt means for the next one (docs/design/collections.md, "Retries"): soft declines are
 * retried on a schedule counted from the first failure, hard declines and failures that need the customer are
 * never retried automatically, and technical errors (no decision from the issuer) retry soon on a track of their
 * own that does not count as a try.
 */

export interface DunningPolicy {
  /** Days after the first failure on which soft declines are tried again, in order. */
  retryDays: readonly number[];
  /** Attempts that reached a gateway, the first included, after which an invoice is no longer tried. */
  maxAttempts: number;
  /** Minutes to wait after each technical error in a row; past the last, the soft schedule applies. */
  technicalBackoffMinutes: readonly number[];
}

/**
 * The default: +1, +3, +7 and +14 days after the first failure, at most 5 attempts (fewer than Stripe's 8 in two
 * weeks, which rely on machine-learned timing we do not have, and inside the card networks' caps); technical
 * errors after 5, 10, 20 ... minutes, eight times (Kill Bill's plugin-failure defaults).
 */
export const DEFAULT_DUNNING_POLICY: DunningPolicy = {
  retryDays: [1, 3, 7, 14],
  maxAttempts: 5,
  technicalBackoffMinutes: [5, 10, 20, 40, 80, 160, 320, 640],
};

export interface AttemptOutcome {
  retryClass: RetryClass;
  /** Attempts that reached a gateway so far, this one included when it did (NumTries after it). */
  tries: number;
  /** When the first counted failure of this run of failures happened (this attempt's time if it is the first). */
  firstFailureAt: string;
  /** Technical errors in a row, this one included. */
  technicalErrorsInRow: number;
  /** This attempt's time. */
  at: string;
  timeZone: string;
}

export type NextTry = { nextTryAt: string; exhausted: false } | { nextTryAt: null; exhausted: boolean };

/**
 * When to try again after a failed attempt. Soft retries fall at the start of their day in the account's time
 * zone, the moment the daily bill run (and a test clock's step) reaches them. `exhausted` is true only when the
 * soft schedule ran out: a hard or customer-action failure stops without exhausting (a new method restarts it).
 */
export function nextTryAfterFailure(outcome: AttemptOutcome, policy: DunningPolicy): NextTry {
  if (outcome.retryClass === 'hard' || outcome.retryClass === 'customer_action') {
    return { nextTryAt: null, exhausted: false };
  }
  if (outcome.retryClass === 'technical') {
    const wait = policy.technicalBackoffMinutes[outcome.technicalErrorsInRow - 1];
    if (wait !== undefined) {
      return { nextTryAt: new Date(Date.parse(outcome.at) + wait * 60_000).toISOString(), exhausted: false };
    }
  }
  if (outcome.tries >= policy.maxAttempts) return { nextTryAt: null, exhausted: true };
  // The n-th try failed: the next is the n-th day of the schedule (a technical error past its track takes the
  // soft day it has reached, or tomorrow when no try counted yet).
  const day = policy.retryDays[Math.max(outcome.tries, 1) - 1];
  if (day === undefined) return { nextTryAt: null, exhausted: true };
  const firstDay = dateAt(outcome.firstFailureAt, outcome.timeZone);
  let next = startOfDate(addDays(firstDay, day), outcome.timeZone);
  // Never in the past (a first failure long ago, then a technical track that ran past the schedule's day).
  if (next <= outcome.at)
    next = startOfDate(addDays(dateAt(outcome.at, outcome.timeZone), 1), outcome.timeZone);
  return { nextTryAt: next, exhausted: false };
}
