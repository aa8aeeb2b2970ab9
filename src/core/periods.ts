import { Temporal } from 'temporal-polyfill';
import type { PlainDate } from './calendar.ts';
import { memoize } from './memo.ts';

/**
 * Billing periods. A term is `count` months or `count` days (spec: TermType months or days). Periods are counted
 * from an anchor date: boundary k is anchor + k × term, always computed from the anchor itself, never from the
 * previous boundary. So a monthly term anchored on Jan 31 has boundaries Feb 28 (Feb 29 in a leap year), Mar 31,
 * Apr 30, May 31: a short month clamps to its last day and the next month returns to the anchor day. A period is
 * the half-open range [boundary k, boundary k+1): its start is billed, its end is the next period's start.
 */
export const TERM_UNITS = ['months', 'days'] as const;
export type TermUnit = (typeof TERM_UNITS)[number];

export interface Term {
  count: number;
  unit: TermUnit;
}

export function isTermUnit(value: string): value is TermUnit {
  return (TERM_UNITS as readonly string[]).includes(value);
}

export function isValidTerm(term: Term): boolean {
  return Number.isSafeInteger(term.count) && term.count >= 1 && isTermUnit(term.unit);
}

/** anchor + k × term (k may be negative), months clamped to the end of shorter months. */
export const boundary: (anchor: PlainDate, term: Term, k: number) => PlainDate = memoize(
  (anchor: PlainDate, term: Term, k: number) => {
    const date = Temporal.PlainDate.from(anchor);
    const moved =
      term.unit === 'months' ? date.add({ months: term.count * k }) : date.add({ days: term.count * k });
    return moved.toString();
  },
  // The unit is part of the key as given: an unknown unit adds days here, as it always did.
  (anchor, term, k) => `${anchor}|${term.count}|${term.unit}|${k}`,
);

/** The number of the period holding `date`: the largest k with boundary(anchor, term, k) ≤ date. */
function periodIndexAtUncached(anchor: PlainDate, term: Term, date: PlainDate): number {
  const from = Temporal.PlainDate.from(anchor);
  const to = Temporal.PlainDate.from(date);
  const largestUnit = term.unit === 'months' ? 'months' : 'days';
  const elapsed = from.until(to, { largestUnit });
  let k = Math.floor(
    (term.unit === 'months' ? elapsed.months + elapsed.years * 12 : elapsed.days) / term.count,
  );
  // Clamping makes month boundaries irregular by a few days: settle the estimate against the real boundaries.
  while (boundary(anchor, term, k) > date) k -= 1;
  while (boundary(anchor, term, k + 1) <= date) k += 1;
  return k;
}

/** periodIndexAtUncached, its results kept (see memo.ts). */
export const periodIndexAt: (anchor: PlainDate, term: Term, date: PlainDate) => number = memoize(
  periodIndexAtUncached,
  (anchor, term, date) => `${anchor}|${term.count}|${term.unit}|${date}`,
);

/** Whether `date` is one of the anchor's boundaries. */
export function isBoundary(anchor: PlainDate, term: Term, date: PlainDate): boolean {
  return boundary(anchor, term, periodIndexAt(anchor, term, date)) === date;
}

/** How often an account's automatic statements go out (docs/spec-decisions.md, "Statements"). */
export const STATEMENT_PERIODS = ['monthly', 'quarterly', 'yearly'] as const;
export type StatementPeriod = (typeof STATEMENT_PERIODS)[number];
export const DEFAULT_STATEMENT_PERIOD: StatementPeriod = 'monthly';

export function isStatementPeriod(value: string): value is StatementPeriod {
  return (STATEMENT_PERIODS as readonly string[]).includes(value);
}
