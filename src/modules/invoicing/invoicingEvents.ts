/** The event types of invoices and recurring invoices, and the events of a recurring invoice's change. */
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
import * as invoiceRepo from './invoice.repository.ts';
import * as recurringRepo from './recurringInvoice.repository.ts';

/** Every invoice event type (docs/webhooks.md lists them; the catalogue test triggers each). */
export const INVOICE_EVENT_TYPES = [
  'invoice.created',
  'invoice.updated',
  'invoice.finalized',
  'invoice.sent',
  'invoice.partially_paid',
  'invoice.paid',
  'invoice.past_due',
  'invoice.cancelled',
  'invoice.deleted',
] as const;

export const RECURRING_INVOICE_EVENT_TYPES = [
  'recurring_invoice.created',
  'recurring_invoice.updated',
  'recurring_invoice.activated',
  'recurring_invoice.renewed',
  'recurring_invoice.cancelled',
  'recurring_invoice.reactivated',
  'recurring_invoice.expired',
  'recurring_invoice.deleted',
] as const;

export const invoiceRef = (id: number): ResourceRef => ({ type: 'invoice', id });
export const recurringInvoiceRef = (id: number): ResourceRef => ({ type: 'recurring_invoice', id });

/** Once-keys of the moves that happen by time, shared by the bill run's day and an API change on that day. */
export const recurringOnceKeys = {
  activated: (id: number, on: string) => `recurring_invoice.activated:${id}:${on}`,
  expired: (id: number, on: string) => `recurring_invoice.expired:${id}:${on}`,
};

export const invoiceOnceKeys = {
  pastDue: (id: number, dueDate: string) => `invoice.past_due:${id}:${dueDate}`,
};

function dayOf(ctx: ServiceContext, wireDate: unknown): string {
  return typeof wireDate === 'string' ? dateAt(wireDate, ctx.account.timeZone) : 'none';
}

/**
 * The events of a change of a recurring invoice: its comp_Status move (cancelled, reactivated, expired,
 * activated), else `mainType`.
 */
function recurringChangeEvents(
  ctx: ServiceContext,
  before: Snapshot,
  after: Record<string, unknown> | undefined,
  mainType: string,
): EventToEmit[] {
  const { ref } = before;
  const id = Number(ref.id);
  const was = before.object?.['comp_Status'];
  const status = after?.['comp_Status'];
  if (status === was) return [{ type: mainType, ref, before }];
  if (status === 'Cancelled') return [{ type: 'recurring_invoice.cancelled', ref, before }];
  if (was === 'Cancelled') return [{ type: 'recurring_invoice.reactivated', ref, before }];
  if (status === 'Expired') {
    const claimsOnceKey = recurringOnceKeys.expired(id, dayOf(ctx, after?.['EndDate']));
    return [{ type: 'recurring_invoice.expired', ref, before, claimsOnceKey }];
  }
  if (status === 'Active' && was === 'Future') {
    const claimsOnceKey = recurringOnceKeys.activated(id, dayOf(ctx, after?.['StartDate']));
    return [
      { type: mainType, ref, before },
      { type: 'recurring_invoice.activated', ref, before, claimsOnceKey },
    ];
  }
  return [{ type: mainType, ref, before }];
}

/** Emits the events of a change of a recurring invoice made since `before` was read, in its transaction. */
export async function emitRecurringChange(
  ctx: ServiceContext,
  before: Snapshot,
  mainType: string,
): Promise<void> {
  const after = await snapshotResource(ctx, before.ref);
  await emitEvents(ctx, withAfter(recurringChangeEvents(ctx, before, after.object, mainType), after.object));
}

/** Runs a change of a held recurring invoice in its transaction and emits its events. */
export async function withRecurringInvoiceEvents<T>(
  tctx: ServiceContext,
  recurringInvoiceId: number,
  mainType: string,
  change: () => Promise<T>,
): Promise<T> {
  const before = await snapshotResource(tctx, recurringInvoiceRef(recurringInvoiceId));
  const result = await change();
  await emitRecurringChange(tctx, before, mainType);
  return result;
}

/**
 * Days a time-driven event is still emitted after its day, should no bill run have run that day (the service
 * down): its candidates are read again on each run of those days, and their once-keys keep it to one event.
 */
export const TIME_EVENTS_LOOKBACK_DAYS = 3;

/** A snapshot of what the object was before a move by time: the object now with the fields that moved set back. */
function movedFrom(
  object: Record<string, unknown> | undefined,
  ref: ResourceRef,
  fields: Record<string, unknown>,
) {
  return object ? { ref, object: { ...object, ...fields } } : undefined;
}

/**
 * The time-driven events of invoices and recurring invoices as of `on` (the bill run's day, on its clock):
 * `invoice.past_due` for issued invoices still owed whose due date has passed, `recurring_invoice.activated` and
 * `.expired` for recurring invoices whose StartDate or EndDate came. Each once, by its once-key, however many
 * runs and processes reach the day. One read per kind, then the events in batches (see emitInBatches).
 */
export async function emitInvoicingTimeEvents(ctx: ServiceContext, on: PlainDate): Promise<number> {
  const from = addDays(on, -TIME_EVENTS_LOOKBACK_DAYS);
  const pastDue = await notYetEmitted(
    ctx,
    (await invoiceRepo.listOwedDueBetween(ctx.db, ctx.account.id, from, on)).map((row) => ({
      row,
      onceKey: invoiceOnceKeys.pastDue(row.id, row.due_date),
    })),
  );
  const moves = await notYetEmitted(
    ctx,
    (await recurringRepo.listWithDatesBetween(ctx.db, ctx.account.id, from, on)).flatMap((row) => {
      if (row.end_date !== null && row.end_date >= from && row.end_date <= on) {
        return [{ row, expired: true, onceKey: recurringOnceKeys.expired(row.id, row.end_date) }];
      }
      const createdOn = dateAt(row.created_at, ctx.account.timeZone);
      if (row.start_date >= from && row.start_date <= on && createdOn < row.start_date) {
        return [{ row, expired: false, onceKey: recurringOnceKeys.activated(row.id, row.start_date) }];
      }
      return [];
    }),
  );
  const pastDueWritten = await emitInBatches(ctx, pastDue, async (tctx, batch) => {
    const invoices = await snapshotResources(
      tctx,
      'invoice',
      batch.map(({ row }) => row.id),
    );
    return batch.map(({ row, onceKey }): EventToEmit => {
      const ref = invoiceRef(row.id);
      const object = invoices.get(row.id)?.object;
      const before = movedFrom(object, ref, { Status: 'Due' });
      // Time changed the invoice, nothing else: the object read for `before` is the one after.
      return { type: 'invoice.past_due', ref, before, onceKey, ...(object ? { after: object } : {}) };
    });
  });

  const movesWritten = await emitInBatches(ctx, moves, async (tctx, batch) => {
    const schedules = await snapshotResources(
      tctx,
      'recurring_invoice',
      batch.map(({ row }) => row.id),
    );
    return batch.map(({ row, expired, onceKey }): EventToEmit => {
      const ref = recurringInvoiceRef(row.id);
      const object = schedules.get(row.id)?.object;
      const before = expired
        ? movedFrom(object, ref, { comp_Status: 'Active', isExpired: false })
        : movedFrom(object, ref, { comp_Status: 'Future' });
      return {
        type: expired ? 'recurring_invoice.expired' : 'recurring_invoice.activated',
        ref,
        before,
        onceKey,
        ...(object ? { after: object } : {}),
      };
    });
  });
  return pastDueWritten + movesWritten;
}
