import { addDays } from './calendar.ts';
import type { PlainDate } from './calendar.ts';

/**
 * Payment batches (spec part 2, Batches; docs/design/batches.md): their states, the rails they run on, and the dates
 * the rails impose. Pure: the caller passes today.
 */

/**
 * `open` (lines editable) → `build` (submitted by a person; checked by the next run) → `submitted` (the gateway
 * accepted it, or its file is ready) → `processing` (the action date came) → `processed` (every line final or
 * the return window passed); `cancelled` from open, build or submitted. A failed build goes back to `open` with
 * BuildError.
 */
export const BATCH_STATES = ['open', 'build', 'submitted', 'processing', 'processed', 'cancelled'] as const;
export type BatchState = (typeof BATCH_STATES)[number];

/** The public service: a batch holds at most 500 payments. */
export const MAX_BATCH_LINES = 500;

/** The bank-account methods a batch collects by; one batch, one rail (one bank file). */
export const RAILS = ['debit_order', 'ach', 'sepa'] as const;
export type Rail = (typeof RAILS)[number];

export const isRail = (method: string): method is Rail => (RAILS as readonly string[]).includes(method);

/**
 * States in which a person may still cancel the batch (docs/design/batches.md, "Cancelling": not once the bank is
 * processing it).
 */
export const CANCELLABLE_STATES: readonly BatchState[] = ['open', 'build', 'submitted'];

const isWeekend = (date: PlainDate): boolean => {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 0 || day === 6;
};

/**
 * `days` business days after `date` (Monday to Friday). NOTE: public holidays are not known here (SA's Schedule 1
 * list, TARGET2 closing days, the Fed's): a line that falls on one is settled a day early at worst, and the bank's
 * own return still reverses it.
 */
export function addBusinessDays(date: PlainDate, days: number): PlainDate {
  let at = date;
  for (let left = days; left > 0;) {
    at = addDays(at, 1);
    if (!isWeekend(at)) left -= 1;
  }
  return at;
}

/** The date itself when it is a business day, else the next one. */
export function onBusinessDay(date: PlainDate): PlainDate {
  let at = date;
  while (isWeekend(at)) at = addDays(at, 1);
  return at;
}

/**
 * Business days between submitting a batch and its action date: SA two-day debit orders must reach the bank two
 * business days before; ACH files go the business day before settlement; SEPA collections by D-1
 * (docs/design/batches.md, "Rails and their dates").
 */
const LEAD_BUSINESS_DAYS: Readonly<Record<Rail, number>> = { debit_order: 2, ach: 1, sepa: 1 };

/** The earliest action date a batch submitted today can have. */
export function earliestActionDate(rail: Rail, today: PlainDate): PlainDate {
  return addBusinessDays(today, LEAD_BUSINESS_DAYS[rail]);
}

/**
 * The day after which a line the bank has not returned is taken as paid: SA EFT unpaids come within four business
 * days of the action date, ACH returns within two banking days, SEPA returns within five interbank days
 * (docs/design/batches.md, "Rails and their dates").
 */
const RETURN_WINDOW_BUSINESS_DAYS: Readonly<Record<Rail, number>> = { debit_order: 4, ach: 2, sepa: 5 };

export function returnWindowEnd(rail: Rail, actionDate: PlainDate): PlainDate {
  return addBusinessDays(actionDate, RETURN_WINDOW_BUSINESS_DAYS[rail]);
}

/**
 * How long after the action date a processed batch's gateway is still asked for late reversals: SA disputes within
 * 40 days, ACH unauthorised returns (R10) within 60, SEPA refunds of authorised debits within 8 weeks
 * (docs/design/batches.md, "Rails and their dates").
 */
const LATE_WINDOW_DAYS: Readonly<Record<Rail, number>> = { debit_order: 40, ach: 60, sepa: 56 };

export function lateWindowEnd(rail: Rail, actionDate: PlainDate): PlainDate {
  return addDays(actionDate, LATE_WINDOW_DAYS[rail]);
}

/**
 * The oldest action date whose batch may still see a late return today: the longest late window of any rail (ACH's
 * 60 days). Each batch found from it is then held to its own rail's window (lateWindowEnd).
 */
export function oldestActionDateWithLateReturns(today: PlainDate): PlainDate {
  return addDays(today, -Math.max(...Object.values(LATE_WINDOW_DAYS)));
}

/**
 * How many times one invoice may be presented on a rail, the first time included, and after how many days the next
 * presentation goes (docs/design/batches.md, "Presenting again"): an SA "not provided for" may be re-run once, on
 * the next mandated date (a month later for the monthly debit orders we make until mandates say otherwise); ACH
 * R01/R09 may be re-initiated twice within 180 days; SEPA AM04 re-presented once after a new pre-notification.
 */
const PRESENTATIONS: Readonly<Record<Rail, { max: number; afterDays: number }>> = {
  debit_order: { max: 2, afterDays: 30 },
  ach: { max: 3, afterDays: 7 },
  sepa: { max: 2, afterDays: 14 },
};

/**
 * When an unpaid line's invoice is presented again: null when the return may not be retried automatically
 * (not `retryable`), or the rail's presentations are used up (`presented` counts them, this one included).
 */
export function nextPresentation(
  rail: Rail,
  retryable: boolean,
  presented: number,
  returnedOn: PlainDate,
): PlainDate | null {
  const rule = PRESENTATIONS[rail];
  if (!retryable || presented >= rule.max) return null;
  return addDays(returnedOn, rule.afterDays);
}
