import { addDays } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import {
  addBusinessDays,
  businessDayBefore,
  earliestActionDate,
  lastSubmitDate,
} from '../../core/bankingDays.ts';
import type { Rail } from '../../core/bankingDays.ts';

/**
 * Payment batches (spec part 2, Batches; docs/design/batches.md): their states, their size, and when a returned
 * line is presented again. Pure: the caller passes the dates.
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

/**
 * States in which a person may still cancel the batch (docs/design/batches.md, "Cancelling": not once the bank is
 * processing it).
 */
export const CANCELLABLE_STATES: readonly BatchState[] = ['open', 'build', 'submitted'];

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

/**
 * How many business days before a batch's last safe day its staff are told to submit it (docs/gateways.md,
 * "Batches that go out"): time to act on an e-mail, not a deadline met on the day it arrives.
 */
export const NOTICE_BUSINESS_DAYS = 2;

/** The day the staff are told of a batch with this action date: NOTICE_BUSINESS_DAYS before its last safe day. */
export function submissionNoticeDate(rail: Rail, actionDate: PlainDate): PlainDate {
  let at = lastSubmitDate(rail, actionDate);
  for (let left = NOTICE_BUSINESS_DAYS; left > 0; left -= 1) at = businessDayBefore(at, rail);
  return at;
}

/**
 * The latest action date the run bundles today: the rail's lead and the notice's days ahead, so that a batch
 * exists, with its lines, on the day its staff are told of it.
 */
export function bundlingHorizon(rail: Rail, today: PlainDate): PlainDate {
  return addBusinessDays(earliestActionDate(rail, today), NOTICE_BUSINESS_DAYS, rail);
}
