import type { ServiceContext } from '../../context.ts';
import { withTransaction } from '../../context.ts';
import { parseWireDate } from '../../core/wireDates.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import * as repo from './webhookEndpoint.repository.ts';
import * as replays from './webhookEndpointReplay.repository.ts';
import { serviceNow } from './webhookEndpoint.service.ts';

/** Recovered deliveries become due at most this many a second, oldest first, so a receiver is not flooded. */
export const RECOVER_PER_SECOND = 10;
export const RECOVER_MAX_PER_CALL = 10_000;
/** One recover per endpoint in this long: a second call meanwhile is answered 409 recover_in_progress. */
export const RECOVER_INTERVAL_MS = 60_000;

/**
 * Sends one event to one endpoint again, as a new delivery due at once with the whole retry schedule before it.
 * The event keeps its id, which is the `webhook-id` receivers de-duplicate on.
 */
export async function resendEvent(ctx: ServiceContext, eventId: string, endpointId: number): Promise<number> {
  const deliveryId = await withTransaction(ctx, async (tctx) => {
    if (!(await replays.eventExists(tctx.db, tctx.account.id, eventId)))
      throw new NotFoundError('Event', eventId);
    if (!(await repo.findEndpoint(tctx.db, tctx.account.id, endpointId)))
      throw new NotFoundError('Webhook endpoint', endpointId);
    return replays.insertDelivery(tctx.db, {
      accountId: tctx.account.id,
      endpointId,
      eventId,
      createdAt: serviceNow(tctx).toISOString(),
    });
  });
  ctx.webhookSender?.wake();
  return deliveryId;
}

export interface RecoverWindow {
  /** Wire dates: failed deliveries created from `since` on, before `until` (default now). */
  since: string;
  until?: string;
}

/**
 * Queues the endpoint's failed deliveries created in the window again, oldest first and at most
 * RECOVER_MAX_PER_CALL, due RECOVER_PER_SECOND a second from now, each with a fresh retry schedule. Deliveries
 * still pending from an earlier recover are left as they are. Returns how many were queued.
 */
export async function recoverDeliveries(
  ctx: ServiceContext,
  endpointId: number,
  window: RecoverWindow,
): Promise<number> {
  const since = parseWireDate(window.since, ctx.account.timeZone);
  const until = window.until === undefined ? undefined : parseWireDate(window.until, ctx.account.timeZone);
  if (since === undefined) throw ValidationError.field('Since', 'must be a date or date-time');
  if (window.until !== undefined && until === undefined)
    throw ValidationError.field('Until', 'must be a date or date-time');
  const now = serviceNow(ctx);
  const to = until ?? now.toISOString();
  if (since >= to) throw ValidationError.field('Since', `must be before Until (${to})`);

  const requeued = await withTransaction(ctx, async (tctx) => {
    const claimed = await repo.claimRecoverSlot(
      tctx.db,
      tctx.account.id,
      endpointId,
      now.toISOString(),
      new Date(now.getTime() - RECOVER_INTERVAL_MS).toISOString(),
    );
    if (!claimed) {
      if (!(await repo.findEndpoint(tctx.db, tctx.account.id, endpointId)))
        throw new NotFoundError('Webhook endpoint', endpointId);
      throw new ConflictError(
        'recover_in_progress',
        `Webhook endpoint ${endpointId} was recovered less than a minute ago; try again later`,
      );
    }
    const ids = await replays.failedDeliveryIds(
      tctx.db,
      tctx.account.id,
      endpointId,
      since,
      to,
      RECOVER_MAX_PER_CALL,
    );
    await replays.requeueDeliveries(
      tctx.db,
      tctx.account.id,
      ids.map((id, i) => ({
        id,
        dueAt: new Date(now.getTime() + Math.floor(i / RECOVER_PER_SECOND) * 1000).toISOString(),
      })),
    );
    return ids.length;
  });
  if (requeued > 0) ctx.webhookSender?.wake();
  return requeued;
}
