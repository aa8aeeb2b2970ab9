/**
 * A subscription's pause in the billing core (docs/subscriptions.md, "Pause and resume"): pure, no I/O, no clock.
 *
 * A pause is a window [start, resume) in which no period starts, so nothing in it is billed. A period that would
 * run into the window is cut at its start (a pro-rated stub, as the EndDate cuts the last period), which only
 * happens under `prorata`: a `none` pause starts where the billed time ends. At the resume the cycle restarts:
 * on the resume day (`resume_day`: a new cycle anchored there, nothing prorated) or on the old anchor
 * (`unchanged`: the resume day to the cycle's next boundary is a stub, the one proration rule of
 * subscriptionBilling.ts). Without a resume date the pause stops billing as a cancellation does, until resumed.
 */
import type { PlainDate } from '../../core/calendar.ts';
import { ConflictError } from '../../errors.ts';

export const PAUSE_CREDITS = ['none', 'prorata'] as const;
export type PauseCredit = (typeof PAUSE_CREDITS)[number];
export const BILLING_ANCHORS = ['resume_day', 'unchanged'] as const;
export type ResumeAnchor = (typeof BILLING_ANCHORS)[number];

export interface PauseWindow {
  /** The first day not billed. */
  start: PlainDate;
  /** The day billing resumes; null: until resumed. */
  resume: PlainDate | null;
  anchor: ResumeAnchor;
}

/** The record's pause, or null. */
export function pauseOf(row: {
  pauseDate: PlainDate | null;
  resumeDate: PlainDate | null;
  resumeBillingAnchor: string | null;
}): PauseWindow | null {
  if (row.pauseDate === null) return null;
  return {
    start: row.pauseDate,
    resume: row.resumeDate,
    anchor: row.resumeBillingAnchor === 'unchanged' ? 'unchanged' : 'resume_day',
  };
}

/** Paused on `day`: from the pause's start until (not including) its resume day. */
export function isPausedOn(pause: PauseWindow | null | undefined, day: PlainDate): boolean {
  if (!pause) return false;
  return pause.start <= day && (pause.resume === null || day < pause.resume);
}

/** The day billing stops for good, as far as the plan knows: the start of a pause with no resume date. */
export function pauseStopOf(pause: PauseWindow | null | undefined): PlainDate | null {
  return pause && pause.resume === null ? pause.start : null;
}

/** Where a period starting on `start` is cut by the pause: its start, when the pause begins after `start`. */
export function pauseCutOf(pause: PauseWindow | null | undefined, start: PlainDate): PlainDate | null {
  return pause && pause.start > start ? pause.start : null;
}

/** A period starting on the resume day off the kept cycle is a stub to the cycle's next boundary. */
export function isResumeStub(pause: PauseWindow | null | undefined, start: PlainDate): boolean {
  return !!pause && pause.anchor === 'unchanged' && pause.resume === start;
}

/**
 * Moves billing past the pause when the next period would start inside it: the next period starts on the resume
 * day, on a cycle anchored there under `resume_day`. True when it moved.
 */
export function skipPause(
  run: { nextStart: PlainDate; anchorDate: PlainDate },
  pause: PauseWindow | null | undefined,
): boolean {
  if (!pause || pause.resume === null) return false;
  if (run.nextStart < pause.start || run.nextStart >= pause.resume) return false;
  run.nextStart = pause.resume;
  if (pause.anchor === 'resume_day') run.anchorDate = pause.resume;
  return true;
}

/** A pause or a resume not reached yet on `day`: a future change (isFutureChange). */
export function pauseScheduled(
  row: { pauseDate: PlainDate | null; resumeDate: PlainDate | null },
  day: PlainDate,
): boolean {
  if (row.pauseDate === null) return false;
  return row.pauseDate > day || (row.resumeDate !== null && row.resumeDate > day);
}

/** What a resume that waits for its invoice's payment needs of the record (docs/subscriptions.md). */
export interface ResumeWait {
  resumeDate: PlainDate | null;
  /** The day the resumption invoice is voided if still unpaid; null: the resume does not wait. */
  resumePayBy?: PlainDate | null;
  /** The day a payment made that invoice Paid: the day the subscription really resumed. */
  resumePaidOn?: PlainDate | null;
}

/**
 * Waiting on `day` for the resumption invoice to be paid: from the resume day (its invoice issued) until the day it
 * is paid. The subscription is still Paused then, though its resumption period is billed (docs/subscriptions.md,
 * "Resuming when paid").
 */
export function awaitsResumptionPayment(row: ResumeWait, day: PlainDate): boolean {
  if (row.resumePayBy == null || row.resumeDate === null || row.resumeDate > day) return false;
  return row.resumePaidOn == null || day < row.resumePaidOn;
}

/** The day a paused subscription resumed (or resumes): its payment's day when the resume waited for it. */
export function resumedOn(row: ResumeWait): PlainDate | null {
  return row.resumePayBy == null ? row.resumeDate : (row.resumePaidOn ?? null);
}

/**
 * Paused now, or a pause scheduled, or a resume waiting for its payment: what a second pause, and a change of
 * terms, wait for.
 */
export function hasOpenPause(row: { pauseDate: PlainDate | null } & ResumeWait, day: PlainDate): boolean {
  if (row.pauseDate === null) return false;
  return row.resumeDate === null || row.resumeDate > day || awaitsResumptionPayment(row, day);
}

/**
 * A change of package or term is refused while a pause is open (409): its proration would start a period inside
 * the pause. Resume first (docs/subscriptions.md, "While paused").
 */
export function assertNoOpenPause(
  row: { id: number; pauseDate: PlainDate | null } & ResumeWait,
  day: PlainDate,
): void {
  if (hasOpenPause(row, day)) {
    throw new ConflictError(
      'subscription_paused',
      `Subscription ${row.id} is paused or has a pause scheduled`,
    );
  }
}
