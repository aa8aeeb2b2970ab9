/** The events of subscriptions: of a change made through the API, of billing, and of the passage of time. */
import type { ServiceContext } from '../../context.ts';
import { addDays, dateAt } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import {
  emitEvents,
  emitInBatches,
  notYetEmitted,
  withAfter,
  snapshotResource,
  snapshotResources,
} from '../events/index.ts';
import type { EventToEmit, ResourceRef, Snapshot } from '../events/index.ts';
import { listWithStatusDatesBetween } from './timeEventCandidates.repository.ts';
import { statusOf } from './subscriptionTimeline.ts';
import type { SubscriptionStatusDates } from './subscription.ts';
import { noticePause } from './pauseNotice.ts';
import { awaitsResumptionPayment, resumedOn } from './subscriptionPause.ts';
import type { PauseNoticeKind } from './pauseNotice.ts';

/** Every event type this module emits (docs/webhooks.md lists them; the catalogue test triggers each). */
export const SUBSCRIPTION_EVENT_TYPES = [
  'subscription.created',
  'subscription.updated',
  'subscription.usage_recorded',
  'subscription.future_change_scheduled',
  'subscription.future_change_applied',
  'subscription.renewed',
  'subscription.trial_started',
  'subscription.trial_will_end',
  'subscription.activated',
  'subscription.cancelled',
  'subscription.expired',
  'subscription.reactivated',
  'subscription.backdated',
  // Started when paid (docs/subscriptions.md, "Subscriptions that start when paid").
  'subscription.incomplete',
  'subscription.incomplete_expired',
  'subscription.paused',
  'subscription.resumed',
  'subscription.pause_will_end',
  // A resume that waited for its invoice's payment, left unpaid (docs/subscriptions.md, "Resuming when paid").
  'subscription.resume_expired',
] as const;

export const subscriptionRef = (id: number): ResourceRef => ({ type: 'subscription', id });

type Wire = Record<string, unknown>;

/**
 * Once-keys of the status moves that happen by time, so that the bill run's day and an API change reaching the
 * same status on the same day emit one event between them. Dates are the account's calendar dates.
 */
export const onceKeys = {
  activated: (id: number, on: string) => `subscription.activated:${id}:${on}`,
  trialStarted: (id: number, on: string) => `subscription.trial_started:${id}:${on}`,
  trialWillEnd: (id: number, trialEnd: string) => `subscription.trial_will_end:${id}:${trialEnd}`,
  cancelled: (id: number, on: string) => `subscription.cancelled:${id}:${on}`,
  expired: (id: number, on: string) => `subscription.expired:${id}:${on}`,
  paused: (id: number, on: string) => `subscription.paused:${id}:${on}`,
  resumed: (id: number, on: string) => `subscription.resumed:${id}:${on}`,
  pauseWillEnd: (id: number, resume: string) => `subscription.pause_will_end:${id}:${resume}`,
};

/** A wire date (the instant the day begins in the account's zone) as that calendar date. */
function dayOf(ctx: ServiceContext, wireDate: unknown): string {
  return typeof wireDate === 'string' ? dateAt(wireDate, ctx.account.timeZone) : 'none';
}

/**
 * The events of a change, from the subscription before and after it: the lifecycle events its comp_Status move
 * means (cancelled, expired, activated, reactivated), `future_change_scheduled` when it now has a future change,
 * and `mainType` (`subscription.updated` unless the caller says otherwise) when no lifecycle event tells it.
 */
export function changeEvents(
  ctx: ServiceContext,
  before: Snapshot,
  after: Wire | undefined,
  mainType: string,
): EventToEmit[] {
  const ref = before.ref;
  const id = Number(ref.id);
  const was = before.object ?? {};
  const now = after ?? {};
  const lifecycle: EventToEmit[] = [];
  const status = now['comp_Status'];
  if (status !== was['comp_Status']) {
    const ended = was['comp_Status'] === 'Cancelled' || was['comp_Status'] === 'Expired';
    if (status === 'Cancelled') {
      lifecycle.push({
        type: 'subscription.cancelled',
        ref,
        before,
        claimsOnceKey: onceKeys.cancelled(id, dayOf(ctx, now['CancelDate'])),
      });
    } else if (status === 'Expired') {
      lifecycle.push({
        type: 'subscription.expired',
        ref,
        before,
        claimsOnceKey: onceKeys.expired(id, dayOf(ctx, now['EndDate'])),
      });
    } else if (ended) {
      lifecycle.push({ type: 'subscription.reactivated', ref, before });
    } else if (status === 'Paused' || was['comp_Status'] === 'Paused') {
      lifecycle.push(pauseEvent(ctx, before, now));
    } else if (status === 'Active') {
      lifecycle.push({
        type: 'subscription.activated',
        ref,
        before,
        claimsOnceKey: onceKeys.activated(id, dayOf(ctx, now['TrialEndDate'] ?? now['StartDate'])),
      });
    }
  }
  if (now['isFutureChange'] === true && was['isFutureChange'] !== true && status !== 'Cancelled') {
    lifecycle.push({ type: 'subscription.future_change_scheduled', ref, before });
  }
  const main = mainType !== 'subscription.updated' || lifecycle.length === 0;
  return [...(main ? [{ type: mainType, ref, before }] : []), ...lifecycle];
}

/** subscription.paused on its PauseDate or subscription.resumed on its ResumeDate (subscriptionPause.ts). */
function pauseEvent(ctx: ServiceContext, before: Snapshot, now: Wire): EventToEmit {
  const id = Number(before.ref.id);
  return now['comp_Status'] === 'Paused'
    ? {
        type: 'subscription.paused',
        ref: before.ref,
        before,
        claimsOnceKey: onceKeys.paused(id, dayOf(ctx, now['PauseDate'])),
      }
    : {
        type: 'subscription.resumed',
        ref: before.ref,
        before,
        claimsOnceKey: onceKeys.resumed(id, dayOf(ctx, now['ResumeDate'])),
      };
}

/**
 * Runs a change of the held subscription inside its transaction and emits its events (see changeEvents). The
 * `before` is read after the hold, so that it is the state the change starts from.
 */
export async function withSubscriptionEvents<T>(
  tctx: ServiceContext,
  subscriptionId: number,
  mainType: string,
  change: () => Promise<T>,
): Promise<T> {
  const ref = subscriptionRef(subscriptionId);
  const before = await snapshotResource(tctx, ref);
  const result = await change();
  const after = await snapshotResource(tctx, ref);
  await emitEvents(tctx, withAfter(changeEvents(tctx, before, after.object, mainType), after.object));
  return result;
}

/** Days before TrialEndDate that `subscription.trial_will_end` is emitted (Stripe's three). */
export const TRIAL_WARNING_DAYS = 3;

/** As invoicing's: a day missed by the bill run is caught up within this many days. */
const LOOKBACK_DAYS = 3;

/** What the subscription looked like on `day`: the fields a move by time changes. */
function statusFieldsOn(row: SubscriptionStatusDates, day: PlainDate): Wire {
  return {
    comp_Status: statusOf(row, day),
    isCancelled: row.cancelDate !== null && row.cancelDate <= day,
    isExpired: row.endDate !== null && row.endDate <= day,
  };
}

interface TimeEvent {
  type: string;
  /** The day the status moved (its `previous` is the status the day before); null for a warning. */
  day: PlainDate | null;
  onceKey: string;
}

/** The time-driven events of a subscription on `on`: the moves by time that fall in the window ending then. */
function timeEventsOf(
  row: SubscriptionStatusDates,
  on: PlainDate,
  from: PlainDate,
  createdOn: PlainDate,
): TimeEvent[] {
  const status = statusOf(row, on);
  const inWindow = (date: PlainDate | null): date is PlainDate => date !== null && date >= from && date <= on;
  if (status === 'Cancelled' && inWindow(row.cancelDate)) {
    const day = row.cancelDate;
    return [{ type: 'subscription.cancelled', day, onceKey: onceKeys.cancelled(row.id, day) }];
  }
  if (status === 'Expired' && inWindow(row.endDate)) {
    const day = row.endDate;
    return [{ type: 'subscription.expired', day, onceKey: onceKeys.expired(row.id, day) }];
  }
  const paused = pauseTimeEvents(row, status, on, inWindow);
  if (paused.length > 0) return paused;
  const activeFrom = row.trialEndDate ?? row.startDate;
  if (status === 'Active' && inWindow(activeFrom) && createdOn < activeFrom) {
    return [
      { type: 'subscription.activated', day: activeFrom, onceKey: onceKeys.activated(row.id, activeFrom) },
    ];
  }
  if (status !== 'Trial') return [];
  const events: TimeEvent[] = [];
  if (inWindow(row.startDate) && createdOn < row.startDate) {
    const day = row.startDate;
    events.push({ type: 'subscription.trial_started', day, onceKey: onceKeys.trialStarted(row.id, day) });
  }
  const trialEnd = row.trialEndDate!;
  if (trialEnd <= addDays(on, TRIAL_WARNING_DAYS)) {
    events.push({
      type: 'subscription.trial_will_end',
      day: null,
      onceKey: onceKeys.trialWillEnd(row.id, trialEnd),
    });
  }
  return events;
}

/**
 * The pause's moves by time: paused on its PauseDate, pause_will_end PAUSE_WARNING_DAYS before a dated resume (the
 * trial's rule), resumed on its ResumeDate.
 */
function pauseTimeEvents(
  row: SubscriptionStatusDates,
  status: string,
  on: PlainDate,
  inWindow: (date: PlainDate | null) => date is PlainDate,
): TimeEvent[] {
  const events: TimeEvent[] = [];
  if (status === 'Paused' && inWindow(row.pauseDate)) {
    const day = row.pauseDate;
    events.push({ type: 'subscription.paused', day, onceKey: onceKeys.paused(row.id, day) });
  }
  // Not once its resume day has come with the resumption invoice unpaid: it resumes when paid, not on a date.
  const warn = row.resumeDate !== null && row.resumeDate <= addDays(on, TRIAL_WARNING_DAYS);
  if (status === 'Paused' && warn && !awaitsResumptionPayment(row, on)) {
    const onceKey = onceKeys.pauseWillEnd(row.id, row.resumeDate!);
    events.push({ type: 'subscription.pause_will_end', day: null, onceKey });
  }
  // Keyed by the ResumeDate, as the API's move is; on the payment's day for a resume that waited for it.
  const day = resumedOn(row);
  if (row.pauseDate !== null && status !== 'Paused' && status !== 'Future' && inWindow(day)) {
    events.push({ type: 'subscription.resumed', day, onceKey: onceKeys.resumed(row.id, row.resumeDate!) });
  }
  return events;
}

/**
 * Candidates of the time-driven events read at a time: on the first of a month nearly every subscription of an
 * account may start, renew or end a trial, and all of them read at once would hold them all in memory.
 */
const TIME_EVENT_CANDIDATES_PER_PAGE = 1000;

/**
 * The time-driven events of subscriptions as of `on` (the bill run's day, on its clock): trial_started,
 * trial_will_end (TRIAL_WARNING_DAYS before TrialEndDate), activated, cancelled (a CancelDate that came) and
 * expired. Each once, by its once-key, however many runs and processes reach the day; a status move carries
 * `previous.comp_Status`. The candidates are read a page at a time, their events emitted in batches (see
 * emitInBatches).
 */
export async function emitSubscriptionTimeEvents(ctx: ServiceContext, on: PlainDate): Promise<number> {
  const window = {
    from: addDays(on, -LOOKBACK_DAYS),
    to: on,
    trialWarningTo: addDays(on, TRIAL_WARNING_DAYS),
  };
  let written = 0;
  for (let afterId = 0; ;) {
    const rows = await listWithStatusDatesBetween(ctx.db, ctx.account.id, window, {
      afterId,
      limit: TIME_EVENT_CANDIDATES_PER_PAGE,
    });
    written += await emitTimeEventsOf(ctx, rows, on, window.from);
    if (rows.length < TIME_EVENT_CANDIDATES_PER_PAGE) return written;
    afterId = rows.at(-1)!.id;
  }
}

/** The time-driven events of one page of candidates not emitted yet. */
async function emitTimeEventsOf(
  ctx: ServiceContext,
  rows: readonly SubscriptionStatusDates[],
  on: PlainDate,
  from: PlainDate,
): Promise<number> {
  const candidates: (EventToEmit & { day: PlainDate | null })[] = [];
  for (const row of rows) {
    for (const event of timeEventsOf(row, on, from, dateAt(row.createdAt, ctx.account.timeZone))) {
      candidates.push({ ...event, ref: subscriptionRef(row.id) });
    }
  }
  const byId = new Map(rows.map((row) => [row.id, row]));
  return emitInBatches(
    ctx,
    await notYetEmitted(ctx, candidates),
    async (tctx, events) => {
      const current = await snapshotResources(
        tctx,
        'subscription',
        events.map((event) => event.ref.id),
      );
      return events.map(({ day, ...event }) => {
        const object = current.get(event.ref.id)?.object;
        if (day === null || !object) return event;
        const row = byId.get(Number(event.ref.id))!;
        return {
          ...event,
          before: { ref: event.ref, object: { ...object, ...statusFieldsOn(row, addDays(day, -1)) } },
          // Nothing changes the subscription here: the object read for `before` is the one after.
          after: object,
        };
      });
    },
    (tctx, written) => noticePausesOf(tctx, written, byId),
  );
}

const PAUSE_NOTICES: Record<string, PauseNoticeKind> = {
  'subscription.pause_will_end': 'resuming',
  'subscription.resumed': 'resumed',
};

/** The customers told of the pauses' moves just written, each once with its event (pauseNotice.ts). */
async function noticePausesOf(
  ctx: ServiceContext,
  written: readonly { type: string; resource: { id: number | string } }[],
  byId: ReadonlyMap<number, SubscriptionStatusDates>,
): Promise<void> {
  for (const event of written) {
    const kind = PAUSE_NOTICES[event.type];
    const row = byId.get(Number(event.resource.id));
    if (kind && row) await noticePause(ctx, row, kind);
  }
}
