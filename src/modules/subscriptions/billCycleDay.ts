import { Temporal } from 'temporal-polyfill';
import type { PlainDate } from '../../core/calendar.ts';
import { boundary, periodIndexAt } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';

/**
 * The bill-cycle day: the day of the month (1 to 31) on which a customer's monthly and multi-month subscriptions
 * renew. A month shorter than the day renews on its last day and the next month returns to the day, as any cycle
 * anchored on a 29th, 30th or 31st does (periods.ts): the cycle is anchored on a date whose day of month is the
 * bill-cycle day, and its boundaries are counted from that anchor.
 *
 * Reaching the day, the one rule: the first period runs from its start to the first bill-cycle-day date after it
 * (none when the start falls on one), priced as any stub over the whole cycle period holding it, then whole terms
 * follow on the day. Example: 30.00 a month from Jan 20, day 1: the stub Jan 20–Feb 1 over Jan 1–Feb 1 (31 days):
 * 30.00 × 12 / 31 = 11.612… → 11.61, then 30.00 on Feb 1, Mar 1, ...
 */
/** Only terms counted in months have a day of the month to renew on; a term of days ignores the bill-cycle day. */
export function honoursBillCycleDay(term: Term): boolean {
  return term.unit === 'months';
}

/** The bill-cycle-day date of `date`'s month: the day itself, or the month's last day when it is shorter. */
export function billCycleDateIn(date: PlainDate, day: number): PlainDate {
  const month = Temporal.PlainDate.from(date).toPlainYearMonth();
  return month.toPlainDate({ day: Math.min(day, month.daysInMonth) }).toString();
}

/** Whether `date` is a bill-cycle-day date: the day itself, or the last day of a month shorter than it. */
export function isBillCycleDate(date: PlainDate, day: number): boolean {
  return billCycleDateIn(date, day) === date;
}

/** The first bill-cycle-day date on or after `from`. */
export function billCycleDateFrom(from: PlainDate, day: number): PlainDate {
  const inMonth = billCycleDateIn(from, day);
  if (inMonth >= from) return inMonth;
  const next = Temporal.PlainDate.from(from).toPlainYearMonth().add({ months: 1 }).toPlainDate({ day: 1 });
  return billCycleDateIn(next.toString(), day);
}

/** Months searched back for a month long enough to hold the day: a yearly term on Feb 29 looks four years back. */
const ANCHOR_SEARCH_TERMS = 48;

/**
 * The anchor of a cycle of `term` that renews on `day` and has `onCycle` as a boundary: the latest date at or
 * before it, a whole number of terms back, whose day of month is `day` (Jan 31 for Feb 28 and day 31). Counted
 * from it, a short month's boundary returns to the day the month after. `onCycle` itself when it is not a
 * bill-cycle-day date, when no such month is found, or for a term of days.
 */
export function cycleAnchorThrough(onCycle: PlainDate, day: number, term: Term): PlainDate {
  if (!honoursBillCycleDay(term) || !isBillCycleDate(onCycle, day)) return onCycle;
  const month = Temporal.PlainDate.from(onCycle).toPlainYearMonth();
  for (let k = 0; k <= ANCHOR_SEARCH_TERMS; k += 1) {
    const candidate = month.subtract({ months: term.count * k });
    if (candidate.daysInMonth < day) continue;
    const anchor = candidate.toPlainDate({ day }).toString();
    if (boundary(anchor, term, k) === onCycle) return anchor;
  }
  return onCycle;
}

/**
 * Where the first period of a subscription with a bill-cycle day ends: the first bill-cycle-day date after
 * `start` (the start, or a trial's end), or null when `start` falls on one (no stub) or the term is in days.
 */
export function firstBillCycleSync(start: PlainDate, day: number, term: Term): PlainDate | null {
  if (!honoursBillCycleDay(term)) return null;
  const sync = billCycleDateFrom(start, day);
  return sync === start ? null : sync;
}

/**
 * The whole term that ends on `end`, a boundary of a cycle renewing on `day` (or of any cycle when `day` is
 * null): the cycle's period before it. Feb 28 on day 31 is the end of Jan 31–Feb 28 (28 days), not of Jan 28–Feb 28.
 */
export function wholeTermEndingAt(end: PlainDate, term: Term, day: number | null | undefined): PlainDate {
  const anchor = day == null ? end : cycleAnchorThrough(end, day, term);
  return boundary(anchor, term, periodIndexAt(anchor, term, end) - 1);
}

/** A bill-cycle-day move: where the new cycle begins and the anchor of its renewals. */
export interface BillCycleMove {
  /** The day the move takes effect: the end of the time already billed. */
  from: PlainDate;
  /** The first new bill-cycle-day date on or after `from`: the stub [from, to) is empty when they are equal. */
  to: PlainDate;
  /** The anchor of the new cycle: `from` starts a stub off it unless `from` is on it. */
  anchorDate: PlainDate;
}

/**
 * Moves a cycle to a new bill-cycle day at `from`, the end of the time already billed: the next period is a stub
 * from there to the first new-day date, priced over the new cycle's period holding `from`, then whole terms on the
 * new day. Example: 30.00 a month renewing on the 1st, billed to Apr 1, moved to the 15th: the stub Apr 1–Apr 15
 * over Mar 15–Apr 15 (31 days): 30.00 × 14 / 31 = 13.548… → 13.55, then 30.00 on Apr 15, May 15, ...
 */
export function moveBillCycle(from: PlainDate, day: number, term: Term): BillCycleMove {
  const to = billCycleDateFrom(from, day);
  return { from, to, anchorDate: cycleAnchorThrough(to, day, term) };
}

/** What a bill-cycle-day change needs of a subscription's record. */
export interface CycleRecord {
  startDate: PlainDate;
  trialEndDate: PlainDate | null;
  isProRata: boolean;
  firstProrataSyncDate: PlainDate | null;
  /** Start of the next period to bill; null before the first. */
  nextRenewDate: PlainDate | null;
  term: Term;
}

/**
 * How a subscription moves to a new bill-cycle day. Before its first whole term is billed (nothing billed, or only
 * its trial), its first period is planned again as a new subscription's would be (`first`): pro-rated from the
 * start, or the trial's end, up to the first new-day date. Otherwise (`next`), the move takes effect at the end of
 * the time already billed (`moveBillCycle`): nothing billed is credited or billed again.
 */
export type BillCycleChange =
  | { kind: 'first'; isProRata: boolean; firstProrataSyncDate: PlainDate | null; anchorDate: PlainDate }
  | ({ kind: 'next' } & BillCycleMove);

export function changeBillCycle(record: CycleRecord, day: number): BillCycleChange {
  const base = record.trialEndDate ?? record.startDate;
  const next = record.nextRenewDate ?? record.startDate;
  const firstStubAhead =
    record.isProRata && record.firstProrataSyncDate !== null && next < record.firstProrataSyncDate;
  if (next <= base || firstStubAhead) {
    const sync = firstBillCycleSync(base, day, record.term);
    return {
      kind: 'first',
      isProRata: sync !== null,
      firstProrataSyncDate: sync,
      anchorDate: cycleAnchorThrough(record.trialEndDate ?? sync ?? record.startDate, day, record.term),
    };
  }
  return { kind: 'next', ...moveBillCycle(next, day, record.term) };
}
