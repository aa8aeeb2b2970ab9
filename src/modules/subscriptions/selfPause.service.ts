/**
 * Pauses a customer makes itself (docs/portal.md, "Pausing"): in the portal, or by taking a retention offer. Each
 * is the API's pause (subscriptionPause.service.ts) under credit `none`, from the end of the billed period to a
 * resume day, within the account's limits: PortalPause on, at most MaxPauseDays long, at most MaxPausesPerYear of
 * them in the 365 days ending today. Each one made is recorded, since the subscription keeps only its last pause.
 */
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { addDays, daysBetween } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { ConflictError, NotAllowedError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { ChangeResult } from './subscriptionChanges.service.ts';
import { preview } from './subscriptionChanges.service.ts';
import { lockSubscription } from './subscriptionEditing.ts';
import { readDate } from './subscriptionInput.ts';
import { pauseSubscription } from './subscriptionPause.service.ts';
import * as repo from './selfPause.repository.ts';

/** The window a customer's pause counts its limit over: the day it is made and the 364 before. */
export const SELF_PAUSE_WINDOW_DAYS = 365;

export interface SelfPauseInput {
  /** The resume day the customer chose, as a wire date; or */
  resumeDate?: string;
  /** the pause's length in days from its start (a retention offer: MaxPauseDays). */
  days?: number;
  source: 'portal' | 'retention';
}

/** A pause as it would be, or was, made. */
export interface SelfPausePlan {
  pauseDate: PlainDate;
  resumeDate: PlainDate;
}

/** How many pauses the subscription's customer made in the 365 days ending today. */
export function selfPausesInYear(ctx: ServiceContext, subscriptionId: number): Promise<number> {
  const since = addDays(today(ctx), 1 - SELF_PAUSE_WINDOW_DAYS);
  return repo.countSelfPausesSince(ctx.db, ctx.account.id, subscriptionId, since);
}

/**
 * Where a pause made today would start: the end of the billed period (credit `none`), as the pause itself finds
 * it, made and rolled back. 409 as the pause is (cancelled, ended, already paused).
 */
export function selfPauseStart(ctx: ServiceContext, subscriptionId: number): Promise<PlainDate> {
  return preview(ctx, async (tctx) => {
    await pauseSubscription(tctx, subscriptionId, { credit: 'none', resumeDate: null });
    return (await lockSubscription(tctx, subscriptionId)).pauseDate!;
  });
}

/** Refuses what the account's limits do not allow: PortalPause off (403), MaxPausesPerYear reached (409). */
export async function assertSelfPauseAllowed(ctx: ServiceContext, subscriptionId: number): Promise<void> {
  const limits = ctx.account.portalSelfService.pause;
  if (!limits.allowed) {
    throw new NotAllowedError('portal_pause_off', 'The account does not let customers pause subscriptions');
  }
  if ((await selfPausesInYear(ctx, subscriptionId)) >= limits.maxPerYear) {
    throw new ConflictError(
      'pause_limit_reached',
      `Subscription ${subscriptionId} was paused ${limits.maxPerYear} time(s) in the last ${SELF_PAUSE_WINDOW_DAYS} days, the most allowed`,
    );
  }
}

/** The resume day asked for, checked against MaxPauseDays from the pause's start; 422 naming ResumeDate. */
function resumeDayOf(ctx: ServiceContext, start: PlainDate, input: SelfPauseInput): PlainDate {
  const maxDays = ctx.account.portalSelfService.pause.maxDays;
  if (input.days !== undefined) return addDays(start, Math.min(input.days, maxDays));
  const problems: FieldProblem[] = [];
  const resume = readDate(ctx, input.resumeDate ?? '', 'ResumeDate', problems);
  if (resume === undefined) throw new ValidationError(problems);
  if (resume <= start) throw ValidationError.field('ResumeDate', `must be after the pause starts (${start})`);
  if (daysBetween(start, resume) > maxDays) {
    throw ValidationError.field(
      'ResumeDate',
      `must be at most ${maxDays} days after the pause starts (${start}): on or before ${addDays(start, maxDays)}`,
      'pause_too_long',
    );
  }
  return resume;
}

/** The pause as it would be made now, within the limits; nothing is changed. */
export async function planSelfPause(
  ctx: ServiceContext,
  subscriptionId: number,
  input: SelfPauseInput,
): Promise<SelfPausePlan> {
  await assertSelfPauseAllowed(ctx, subscriptionId);
  const start = await selfPauseStart(ctx, subscriptionId);
  return { pauseDate: start, resumeDate: resumeDayOf(ctx, start, input) };
}

/**
 * Pauses the subscription as planned (planSelfPause, made before: its start is found by a pause made and rolled
 * back, which cannot run inside a transaction), within the account's limits counted again with the subscription
 * held, and records the pause. 409 `pause_moved` when the pause would no longer start on the planned day (a new
 * period was billed since).
 */
export function pauseSubscriptionAsCustomer(
  ctx: ServiceContext,
  subscriptionId: number,
  plan: SelfPausePlan,
  source: SelfPauseInput['source'],
): Promise<ChangeResult & SelfPausePlan> {
  return withTransaction(ctx, async (tctx) => {
    await lockSubscription(tctx, subscriptionId);
    await assertSelfPauseAllowed(tctx, subscriptionId);
    const result = await pauseSubscription(tctx, subscriptionId, {
      credit: 'none',
      resumeDate: plan.resumeDate,
    });
    const made = await lockSubscription(tctx, subscriptionId);
    if (made.pauseDate !== plan.pauseDate) {
      throw new ConflictError(
        'pause_moved',
        `The pause would now start on ${made.pauseDate}, not ${plan.pauseDate}`,
      );
    }
    await repo.insertSelfPause(
      tctx.db,
      tctx.account.id,
      { subscriptionId, source, ...plan, madeOn: today(tctx) },
      nowInstant(tctx),
    );
    return { ...result, ...plan };
  });
}
