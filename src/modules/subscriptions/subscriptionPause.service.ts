/**
 * Pause and resume (docs/subscriptions.md, "Pause and resume"): a pause is a cut of the billed time, under its
 * credit rule, that leaves the subscription restartable; a resume is the restart, on a new cycle or the old one.
 * The billing core (subscriptionPause.ts) keeps the pause's window out of every period.
 */
import type { ServiceContext } from '../../context.ts';
import { addDays, maxDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { planBilling } from './subscriptionBilling.ts';
import type { SubscriptionTimeline } from './subscriptionBilling.ts';
import { assertNotEnded, cutBilledTime } from './subscriptionChanges.service.ts';
import type { ChangeResult } from './subscriptionChanges.service.ts';
import { timelineFor, withSubscriptionHeld } from './subscriptionEditing.ts';
import { billSubscriptionInTransaction } from './subscriptionBilling.service.ts';
import * as repo from './subscription.repository.ts';
import { readDate } from './subscriptionInput.ts';
import { awaitsResumptionPayment, hasOpenPause, pauseOf } from './subscriptionPause.ts';
import { activationStatusOf, incompleteUntilOf } from './subscriptionActivation.ts';
import { getCustomer } from '../customers/index.ts';
import { reschedule, withdrawnPause } from './subscriptionPauseSchedule.service.ts';
import { noticePause } from './pauseNotice.ts';
import type { PauseCredit, ResumeAnchor } from './subscriptionPause.ts';
import type { SubscriptionChanges, SubscriptionRecord } from './subscription.ts';

export interface PauseInput {
  /** Wire dates, read in the account's zone. */
  pauseDate?: string;
  resumeDate?: string | null;
  credit?: PauseCredit;
  billingAnchor?: ResumeAnchor;
}

export interface ResumeInput {
  resumeDate?: string;
  billingAnchor?: ResumeAnchor;
  /** Stay Paused until the resumption invoice is paid (docs/subscriptions.md, "Resuming when paid"). */
  waitForPayment?: boolean;
}

/** A wire date that must not be before today; undefined (with the problem noted) when it is no date or past. */
function futureDate(
  ctx: ServiceContext,
  text: string,
  field: string,
  day: PlainDate,
  problems: FieldProblem[],
): PlainDate | undefined {
  const date = readDate(ctx, text, field, problems);
  if (date !== undefined && date < day) problems.push({ field, message: 'must not be before today' });
  return date !== undefined && date >= day ? date : undefined;
}

/**
 * The first period start on or after `date`: where a pause under `none` begins, so that the period holding `date`
 * (invoiced already or to be) is served to its end. Planned as the bill run plans, with invoices on their periods'
 * starts.
 */
export function billedTimeEndFrom(timeline: SubscriptionTimeline, date: PlainDate): PlainDate {
  const from = timeline.nextRenewDate ?? timeline.startDate;
  if (date <= from) return from;
  const plan = planBilling(
    {
      ...timeline,
      numDaysBeforeToInv: 0,
      createdOn: timeline.startDate,
      cancelDate: null,
      pause: null,
      eventsUnbilledAtStop: null,
      finalCorrectionOn: null,
    },
    [],
    addDays(date, -1),
  );
  return plan.next.nextRenewDate ?? from;
}

/** Where the pause starts and when it ends, checked against the subscription's dates; 422 naming the field. */
function pauseWindowOf(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  input: PauseInput,
  day: PlainDate,
): { start: PlainDate; resume: PlainDate | null } {
  const problems: FieldProblem[] = [];
  const asked =
    input.pauseDate === undefined ? day : futureDate(ctx, input.pauseDate, 'PauseDate', day, problems);
  const resume =
    input.resumeDate === undefined || input.resumeDate === null
      ? null
      : futureDate(ctx, input.resumeDate, 'ResumeDate', day, problems);
  if (asked === undefined || resume === undefined) throw new ValidationError(problems);
  // Inside a trial the pause starts at the trial's end: the trial is served, nothing is credited for it
  // (docs/spec-decisions.md, "Pause and resume").
  const on = maxDate(maxDate(asked, row.startDate), row.trialEndDate ?? row.startDate);
  const start = input.credit === 'prorata' ? on : billedTimeEndFrom(timelineFor(ctx, row), on);
  const stop = [row.endDate, row.cancelDate].filter((d) => d !== null).sort()[0];
  if (stop !== undefined && start >= stop) {
    throw ValidationError.field(
      'PauseDate',
      `the pause would start on ${start}, when billing has stopped (${stop})`,
    );
  }
  if (resume !== null && resume <= start) {
    throw ValidationError.field('ResumeDate', `must be after the pause starts (${start})`);
  }
  return { start, resume };
}

/**
 * Pauses billing: from the end of the billed period holding PauseDate (credit `none`), or from PauseDate with the
 * unused days credited as a prorata cancel credits them (`prorata`); until ResumeDate, or until resumed. 409 for a
 * cancelled, expired or already paused subscription.
 */
export async function pauseSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
  input: PauseInput,
): Promise<ChangeResult> {
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, held, day) => {
    // What is due is billed first, on the record as it is: the new pause replaces the last one's window, whose
    // resumption period (its new cycle) must be billed before that window is gone.
    const billedFirst = await billSubscriptionInTransaction(tctx, held.id, day);
    const row = (await repo.findSubscriptionRecord(tctx.db, tctx.account.id, held.id)) ?? held;
    assertNotEnded(row, day);
    assertNotIncomplete(row);
    if (hasOpenPause(row, day)) {
      throw new ConflictError('subscription_paused', `Subscription ${row.id} is already paused`);
    }
    const credit = input.credit ?? 'none';
    const { start, resume } = pauseWindowOf(tctx, row, input, day);
    const credits = credit === 'prorata' ? await cutBilledTime(tctx, row, start, 'prorata', 'Paused') : [];
    const changes: SubscriptionChanges = {
      pauseDate: start,
      resumeDate: resume,
      pauseCredit: credit,
      resumeBillingAnchor: input.billingAnchor ?? 'resume_day',
      resumePayBy: null,
      resumePaidOn: null,
      // The credited time is no longer billed: billing would resume from the pause's start.
      ...(row.nextRenewDate !== null && row.nextRenewDate > start ? { nextRenewDate: start } : {}),
    };
    const invoiceIds = [...billedFirst, ...(await reschedule(tctx, row, changes, day))];
    await noticePause(tctx, { ...row, ...changes } as SubscriptionRecord, 'paused', credits.length > 0);
    return { credits, invoiceIds };
  });
}

/**
 * Resumes a paused subscription (or sets the end of a scheduled pause) on ResumeDate, default today: on a new cycle
 * from that day (`resume_day`) or on the old cycle with a stub to its next boundary (`unchanged`). What the resume
 * makes due is billed at once; on or before the pause's first day, it withdraws the pause. 409 unless
 * paused or a pause is scheduled.
 */
export async function resumeSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
  input: ResumeInput,
): Promise<ChangeResult> {
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    const pause = pauseOf(row);
    if (awaitsResumptionPayment(row, day)) {
      throw new ConflictError(
        'subscription_awaiting_payment',
        `Subscription ${row.id} resumes when its resumption invoice is paid (by ${row.resumePayBy})`,
      );
    }
    if (pause === null || !hasOpenPause(row, day)) {
      throw new ConflictError('subscription_not_paused', `Subscription ${row.id} is not paused`);
    }
    assertNotEnded(row, day);
    const problems: FieldProblem[] = [];
    const resume =
      input.resumeDate === undefined ? day : futureDate(tctx, input.resumeDate, 'ResumeDate', day, problems);
    if (resume === undefined) throw new ValidationError(problems);
    // A resume on or before the pause's first day withdraws it.
    if (resume <= pause.start) {
      return { credits: [], invoiceIds: await reschedule(tctx, row, withdrawnPause(row), day) };
    }
    if (row.endDate !== null && resume >= row.endDate) {
      throw ValidationError.field('ResumeDate', `must be before the EndDate (${row.endDate})`);
    }
    const changes: SubscriptionChanges = {
      resumeDate: resume,
      resumeBillingAnchor: input.billingAnchor ?? 'resume_day',
      resumePayBy: input.waitForPayment === true ? await resumePayByOf(tctx, row, resume) : null,
      resumePaidOn: null,
    };
    const invoiceIds = await reschedule(tctx, row, changes, day);
    // A dated resume is told by the bill run: three days before, then on the day (subscriptionEvents.ts); one that
    // waits for its payment, when paid (subscriptionResumePayment.service.ts).
    if (resume === day && changes.resumePayBy === null) {
      await noticePause(tctx, { ...row, resumeDate: resume }, 'resumed');
    }
    return { credits: [], invoiceIds };
  });
}

/** Nothing changes a subscription waiting for its first payment, or one that expired waiting (409). */
function assertNotIncomplete(row: SubscriptionRecord): void {
  const status = activationStatusOf(row);
  if (status !== undefined) {
    throw new ConflictError(
      `subscription_${status.toLowerCase()}`,
      `Subscription ${row.id} is ${status.toLowerCase()}`,
    );
  }
}

/**
 * The day a resumption invoice issued on `resume` is voided if still unpaid: the expiry rule of a subscription that
 * starts when paid, on the collection method that will collect it (docs/subscriptions.md, "Resuming when paid").
 */
async function resumePayByOf(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  resume: PlainDate,
): Promise<PlainDate> {
  const method = row.collectionMethod ?? (await getCustomer(ctx, row.customerId)).paymentMethod;
  return incompleteUntilOf(method, resume);
}
