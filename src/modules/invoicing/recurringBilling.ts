import { addDays, maxDate, minDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { boundary, isValidTerm, periodIndexAt } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';
import { BillingInvariantError } from './billingInvariant.ts';

/**
 * When a recurring invoice makes its invoices, decided from its schedule and a date. Pure: no I/O, no clock.
 *
 * A recurring invoice is a fixed document (its charges and taxes) issued once per period:
 * - Periods tile time from the StartDate: period k (numbered k + 1) is [StartDate + k × term,
 *   StartDate + (k + 1) × term), each boundary computed from the StartDate itself (periods.ts), so a monthly
 *   schedule starting Jan 31 renews on Feb 28 (29), Mar 31, Apr 30.
 * - The invoice of a period is dated `numDaysBeforeToInv` days before the period starts, never before the day
 *   the recurring invoice was created, and is made once that date is today or past. A schedule several
 *   periods behind (a StartDate in the past, a bill run that did not run) gets one invoice per missed period,
 *   each dated as above, at most MAX_PERIODS_PER_PLAN per call: the caller calls again for the rest.
 * - The EndDate is the first day no longer covered: no period starts on or after it, and the last period ends
 *   there. That last period is billed in full: the invoice is the fixed document the customer agreed to, not
 *   a price per day, so it is never pro-rated.
 * - A cancelled recurring invoice makes no invoices.
 *
 * The state kept between calls is `periodCount`, the number of periods dealt with (billed, or skipped by a
 * reactivation); the next period to bill is always period index `periodCount`.
 */
export interface RecurringSchedule {
  startDate: PlainDate;
  endDate: PlainDate | null;
  term: Term;
  numDaysBeforeToInv: number;
  /** The day the recurring invoice was created, in the account's time zone: no invoice is dated before it. */
  createdOn: PlainDate;
  isCancelled: boolean;
  periodCount: number;
  lastRenewDate: PlainDate | null;
  lastInvDate: PlainDate | null;
}

export interface RecurringPeriod {
  /** From 1. */
  periodNo: number;
  start: PlainDate;
  /** Exclusive: the next period's start, or the EndDate. */
  end: PlainDate;
  invoiceDate: PlainDate;
}

/** The schedule's record after a plan (or after an edit, with no period billed). */
export interface RecurringScheduleState {
  periodCount: number;
  /** Start of the last period billed. */
  lastRenewDate: PlainDate | null;
  /** Start of the next period to bill; null when none is left or the schedule is cancelled. */
  nextRenewDate: PlainDate | null;
  lastInvDate: PlainDate | null;
  /** When the next invoice is due; null when none is left or the schedule is cancelled. */
  nextInvDate: PlainDate | null;
}

export interface RecurringPlan {
  periods: RecurringPeriod[];
  next: RecurringScheduleState;
}

/** At most this many periods per plan; a schedule further behind continues on the next call. */
export const MAX_PERIODS_PER_PLAN = 400;

function checkSchedule(schedule: RecurringSchedule): void {
  if (!isValidTerm(schedule.term)) {
    throw new BillingInvariantError(`invalid term ${schedule.term.count} ${schedule.term.unit}`);
  }
  if (!Number.isSafeInteger(schedule.periodCount) || schedule.periodCount < 0) {
    throw new BillingInvariantError(`invalid period count ${schedule.periodCount}`);
  }
  if (!Number.isSafeInteger(schedule.numDaysBeforeToInv) || schedule.numDaysBeforeToInv < 0) {
    throw new BillingInvariantError(`invalid numDaysBeforeToInv ${schedule.numDaysBeforeToInv}`);
  }
  if (schedule.endDate !== null && schedule.endDate <= schedule.startDate) {
    throw new BillingInvariantError(`end ${schedule.endDate} is not after the start ${schedule.startDate}`);
  }
}

/** The date of the invoice for a period starting on `start`. */
export function invoiceDateFor(
  schedule: Pick<RecurringSchedule, 'numDaysBeforeToInv' | 'createdOn'>,
  start: PlainDate,
): PlainDate {
  return maxDate(addDays(start, -schedule.numDaysBeforeToInv), schedule.createdOn);
}

/** Period index `index` (from 0), or undefined when it would start on or after the EndDate. */
export function periodAt(schedule: RecurringSchedule, index: number): RecurringPeriod | undefined {
  const start = boundary(schedule.startDate, schedule.term, index);
  if (schedule.endDate !== null && start >= schedule.endDate) return undefined;
  const next = boundary(schedule.startDate, schedule.term, index + 1);
  return {
    periodNo: index + 1,
    start,
    end: schedule.endDate === null ? next : minDate(next, schedule.endDate),
    invoiceDate: invoiceDateFor(schedule, start),
  };
}

function stateAt(
  schedule: RecurringSchedule,
  periodCount: number,
  last: { lastRenewDate: PlainDate | null; lastInvDate: PlainDate | null },
): RecurringScheduleState {
  const next = schedule.isCancelled ? undefined : periodAt(schedule, periodCount);
  return {
    periodCount,
    ...last,
    nextRenewDate: next?.start ?? null,
    nextInvDate: next?.invoiceDate ?? null,
  };
}

/** The record as it stands, with nothing billed: what a create or an edit stores. */
export function scheduleState(schedule: RecurringSchedule): RecurringScheduleState {
  checkSchedule(schedule);
  return stateAt(schedule, schedule.periodCount, schedule);
}

/** The periods to invoice by `today` and the record after them. Throws BillingInvariantError on a broken record. */
export function planRecurringInvoices(schedule: RecurringSchedule, today: PlainDate): RecurringPlan {
  checkSchedule(schedule);
  const periods: RecurringPeriod[] = [];
  let periodCount = schedule.periodCount;
  while (!schedule.isCancelled && periods.length < MAX_PERIODS_PER_PLAN) {
    const period = periodAt(schedule, periodCount);
    if (!period || period.invoiceDate > today) break;
    periods.push(period);
    periodCount += 1;
  }
  const last = periods[periods.length - 1];
  return {
    periods,
    next: stateAt(schedule, periodCount, {
      lastRenewDate: last?.start ?? schedule.lastRenewDate,
      lastInvDate: last?.invoiceDate ?? schedule.lastInvDate,
    }),
  };
}

/**
 * The period count to resume with when a cancelled schedule is reactivated on `today`: periods whose invoice
 * would be dated before today fell due while it was cancelled and are skipped, not billed (a reactivation
 * does not bill the time it was off). Periods whose invoice is dated today or later are billed as usual.
 */
export function periodCountResumingAt(schedule: RecurringSchedule, today: PlainDate): number {
  checkSchedule(schedule);
  // The invoice date is max(start − days, createdOn) and createdOn is never after today, so an invoice is dated
  // before today exactly when the creation day is before today and start − days is before today.
  if (schedule.createdOn >= today) return schedule.periodCount;
  const firstStartKept = addDays(today, schedule.numDaysBeforeToInv);
  if (firstStartKept <= schedule.startDate) return schedule.periodCount;
  let k = periodIndexAt(schedule.startDate, schedule.term, firstStartKept);
  if (boundary(schedule.startDate, schedule.term, k) < firstStartKept) k += 1;
  return Math.max(schedule.periodCount, k);
}

export const RECURRING_STATUSES = ['Active', 'Cancelled', 'Future', 'Expired'] as const;
export type RecurringStatus = (typeof RECURRING_STATUSES)[number];

/** Expired once today reaches the EndDate (the first day no longer covered). */
export function isRecurringExpired(schedule: Pick<RecurringSchedule, 'endDate'>, today: PlainDate): boolean {
  return schedule.endDate !== null && schedule.endDate <= today;
}

/**
 * Spec, States (comp_Status; values seen: Active, Cancelled, Future), first match wins as of `today`:
 * Cancelled when cancelled, Expired from the EndDate on, Future before the StartDate, else Active.
 */
export function recurringStatus(
  schedule: Pick<RecurringSchedule, 'startDate' | 'endDate' | 'isCancelled'>,
  today: PlainDate,
): RecurringStatus {
  if (schedule.isCancelled) return 'Cancelled';
  if (isRecurringExpired(schedule, today)) return 'Expired';
  if (schedule.startDate > today) return 'Future';
  return 'Active';
}
