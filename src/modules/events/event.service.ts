import crypto from 'node:crypto';
import { monotonicFactory } from 'ulid';
import type { ULIDFactory } from 'ulid';
import type { Clock } from '../../clock.ts';
import { whenTransactionEnds } from '../../storage/transactionEnd.ts';
import { isPostgres } from '../../storage/columns.ts';
import { withTransaction } from '../../context.ts';
import type { Actor, HandedOverDelivery, SendReservation, ServiceContext } from '../../context.ts';
import { changedFields, matchesAny } from './eventTypes.ts';
import type { Insertable } from 'kysely';
import type { AuditLogTable } from './tables.ts';
import * as repo from './event.repository.ts';
import type { ResourceRef } from './ports.ts';
import { renderResources } from './eventObjects.ts';

/**
 * Events are written by the change that causes them, in its transaction (a transactional outbox): a change that
 * rolls back leaves no event, and a committed one always has its event. Webhook deliveries and audit entries are
 * written with them.
 *
 * How a use case emits, inside its transaction:
 *   created:  change, then `emitEvent(ctx, 'note.created', ref)`
 *   updated:  `const before = await snapshotResource(ctx, ref)`, change, then `emitEvent(ctx, type, ref, { before })`
 *             (no event when nothing the API shows changed)
 *   deleted:  `const before = await snapshotResource(ctx, ref)`, delete, then `emitEvent(ctx, type, ref, { before })`
 *   a status moved by time, once: `emitEvent(ctx, 'invoice.past_due', ref, { onceKey: 'invoice.past_due:12:2026-12-01' })`
 */

/** The resource as the API showed it before a change: `previous` of `*.updated` events, and deleted objects. */
export interface Snapshot {
  ref: ResourceRef;
  object: Record<string, unknown> | undefined;
}

export interface EventToEmit {
  type: string;
  ref: ResourceRef;
  before?: Snapshot;
  /** Emits the event only the first time this key is seen for the account (time-driven status moves). */
  onceKey?: string;
  /**
   * A change asked for now (an API cancel) that time would otherwise announce again: claims the key so the bill
   * run does not, but is written even when the key was claimed before (cancel, reactivate, cancel on one day).
   */
  claimsOnceKey?: string;
  /** The resource as the caller already rendered it after the change, in this transaction: not rendered again. */
  after?: Record<string, unknown>;
  /** Delivers the event to this endpoint alone, whatever the endpoints subscribe to (`webhook.test`). */
  onlyToEndpoint?: number;
}

/** The event as stored, returned by `GET /v1/events` and delivered by webhooks. */
export interface EventBody {
  id: string;
  type: string;
  timestamp: string;
  accountID: number;
  resource: { type: string; id: number | string; version: number };
  data: { object: Record<string, unknown>; previous?: Record<string, unknown> };
}

/**
 * Random bytes for event ids, drawn from the system's CSPRNG a pool at a time: ulid's own source asks it for one
 * byte per character, which costs more than the rest of an id.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      crypto.randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

/**
 * Event ids, monotonic per wall clock: an id is never below one made before it by the same clock, even within a
 * millisecond. A process's services share the system's clock and so one sequence; a service started on a wall clock
 * of its own (a test's, run ahead to stage what takes real minutes) has its own, so that its future times do not
 * carry over to the ids of services that run on the real one.
 */
const idFactories = new WeakMap<Clock, ULIDFactory>();
const random = pooledRandom();

function nextEventId(wallClock: Clock, wallMs: number): string {
  let next = idFactories.get(wallClock);
  if (!next) idFactories.set(wallClock, (next = monotonicFactory(random)));
  return `evt_${next(wallMs)}`;
}

export async function snapshotResource(ctx: ServiceContext, ref: ResourceRef): Promise<Snapshot> {
  const objects = await renderResources(ctx, ref.type, [ref.id]);
  return { ref, object: objects.get(ref.id) };
}

/** Snapshots of many resources of one type in one read (a bill run's batch), by id; unknown ids left out. */
export async function snapshotResources(
  ctx: ServiceContext,
  type: string,
  ids: readonly (number | string)[],
): Promise<Map<number | string, Snapshot>> {
  const objects = await renderResources(ctx, type, ids);
  return new Map([...objects].map(([id, object]) => [id, { ref: { type, id }, object }]));
}

/** The events of one change, all given the resource as the caller rendered it after the change. */
export function withAfter(
  events: readonly EventToEmit[],
  after: Record<string, unknown> | undefined,
): EventToEmit[] {
  return after ? events.map((event) => ({ ...event, after })) : [...events];
}

/**
 * The candidates of time-driven events whose once-key was not claimed yet: a caller filters with it before
 * rendering, so that a bill run every minute does not render what it announced already.
 */
export async function notYetEmitted<T extends { onceKey?: string }>(
  ctx: ServiceContext,
  candidates: readonly T[],
): Promise<T[]> {
  const keys = candidates.flatMap((c) => (c.onceKey === undefined ? [] : [c.onceKey]));
  if (keys.length === 0) return [...candidates];
  const claimed = await repo.claimedOnceKeys(ctx.db, ctx.account.id, keys);
  return candidates.filter((c) => c.onceKey === undefined || !claimed.has(c.onceKey));
}

/**
 * Items per batch of `emitInBatches`: a day of time-driven events rendered and serialized at once would hold every
 * object in memory (20,000 subscriptions starting on the first of the month).
 */
export const EVENT_BATCH_SIZE = 250;
/**
 * NOTE: on SQLite a transaction holds the event loop until it commits (docs/architecture.md, "Storage"): 250 events
 * rendered and written took 150–330 ms on a loaded 2-core machine, which every request of the process waited out.
 */
const SQLITE_EVENT_BATCH_SIZE = 50;

/**
 * Emits the events `build` makes of each batch of `items` (rendering what it needs for that batch alone), each
 * batch in a transaction of its own unless the caller holds one: for time-driven events, whose once-keys make a
 * batch cut short by a crash safe to run again. Returns how many were written.
 */
export async function emitInBatches<T>(
  ctx: ServiceContext,
  items: readonly T[],
  build: (tctx: ServiceContext, batch: T[]) => Promise<EventToEmit[]>,
  /** Runs in the batch's transaction with the events written (an already claimed once-key is not among them). */
  afterWritten?: (tctx: ServiceContext, written: EventBody[]) => Promise<void>,
): Promise<number> {
  let written = 0;
  const size = isPostgres(ctx.db) ? EVENT_BATCH_SIZE : SQLITE_EVENT_BATCH_SIZE;
  for (let at = 0; at < items.length; at += size) {
    const batch = items.slice(at, at + size);
    written += await withTransaction(ctx, async (tctx) => {
      const events = await emitEvents(tctx, await build(tctx, batch));
      if (afterWritten) await afterWritten(tctx, events);
      return events.length;
    });
  }
  return written;
}

export function emitEvent(
  ctx: ServiceContext,
  type: string,
  ref: ResourceRef,
  options: Omit<EventToEmit, 'type' | 'ref'> = {},
): Promise<EventBody[]> {
  return emitEvents(ctx, [{ type, ref, ...options }]);
}

const key = (ref: ResourceRef) => `${ref.type}:${String(ref.id)}`;

/**
 * Writes events, their webhook deliveries and their audit entries in the caller's transaction; returns the
 * events written (a `*.updated` with no visible change, and an already emitted once-key, write none).
 */
export async function emitEvents(ctx: ServiceContext, wanted: readonly EventToEmit[]): Promise<EventBody[]> {
  if (wanted.length === 0) return [];
  if (!ctx.db.isTransaction) throw new Error('events are emitted inside the transaction of their change');
  const accountId = ctx.account.id;
  // When it was written (retention, the ids' order) is wall time; when it happened (`timestamp`) business time.
  const wallMs = ctx.wallClock.now().getTime();
  const recordedAt = new Date(wallMs).toISOString();
  const occurredAt = ctx.clock.now().toISOString();

  // Once-keys are claimed first: a time-driven event already emitted costs no rendering.
  let candidates = wanted.map((event) => ({ event, id: nextEventId(ctx.wallClock, wallMs) }));
  const once = candidates.flatMap((c) => {
    const onceKey = c.event.onceKey ?? c.event.claimsOnceKey;
    return onceKey === undefined ? [] : [{ onceKey, eventId: c.id }];
  });
  if (once.length > 0) {
    const claimed = await repo.claimOnceKeys(ctx.db, accountId, once);
    candidates = candidates.filter((c) => c.event.onceKey === undefined || claimed.has(c.event.onceKey));
  }

  const objects = await renderAll(
    ctx,
    candidates.map((c) => c.event),
  );
  const planned = candidates.flatMap(({ event, id }) => {
    const object = objects.get(key(event.ref)) ?? event.before?.object;
    if (!object) throw new Error(`${event.type}: ${key(event.ref)} cannot be rendered`);
    const previous =
      event.before?.object && objects.has(key(event.ref))
        ? changedFields(event.before.object, object)
        : undefined;
    if (event.type.endsWith('.updated') && previous && Object.keys(previous).length === 0) return [];
    return [{ event, object, previous, id }];
  });
  if (planned.length === 0) return [];

  const counts = new Map<string, { type: string; id: string; count: number }>();
  for (const { event } of planned) {
    const bump = counts.get(key(event.ref)) ?? { type: event.ref.type, id: String(event.ref.id), count: 0 };
    bump.count += 1;
    counts.set(key(event.ref), bump);
  }
  const versions = await repo.bumpResourceVersions(ctx.db, accountId, [...counts.values()]);
  const seen = new Map<string, number>();

  const bodies: EventBody[] = planned.map(({ event, object, previous, id }) => {
    const k = key(event.ref);
    const before = seen.get(k) ?? 0;
    seen.set(k, before + 1);
    // Events of one resource in one call take consecutive versions, in the order they were asked for.
    const version = versions.get(k)! - counts.get(k)!.count + before + 1;
    return {
      id,
      type: event.type,
      timestamp: occurredAt,
      accountID: accountId,
      resource: { type: event.ref.type, id: event.ref.id, version },
      data: previous === undefined ? { object } : { object, previous },
    };
  });

  const payloads = bodies.map((body) => JSON.stringify(body));
  const subscribed = await repo.insertEventsReadEndpoints(
    ctx.db,
    accountId,
    bodies.map((body, i) => ({
      id: body.id,
      account_id: accountId,
      type: body.type,
      occurred_at: occurredAt,
      recorded_at: recordedAt,
      resource_type: body.resource.type,
      resource_id: String(body.resource.id),
      resource_version: body.resource.version,
      payload: payloads[i]!,
    })),
    auditEntries(ctx, planned, bodies, recordedAt),
  );
  await fanOut(ctx, subscribed, planned, bodies, payloads, recordedAt);
  return bodies;
}

async function renderAll(
  ctx: ServiceContext,
  wanted: readonly EventToEmit[],
): Promise<Map<string, Record<string, unknown>>> {
  const objects = new Map<string, Record<string, unknown>>();
  for (const { ref, after } of wanted) if (after) objects.set(key(ref), after);
  const idsByType = new Map<string, Set<number | string>>();
  for (const { ref } of wanted) {
    if (objects.has(key(ref))) continue;
    const ids = idsByType.get(ref.type) ?? new Set();
    ids.add(ref.id);
    idsByType.set(ref.type, ids);
  }
  for (const [type, ids] of idsByType) {
    for (const [id, object] of await renderResources(ctx, type, [...ids]))
      objects.set(key({ type, id }), object);
  }
  return objects;
}

/**
 * Each event goes to the endpoints enabled and subscribed to its type when it is written. Those this process's
 * webhook sender has room for are written leased to it and handed over when the transaction commits (see
 * WebhookSender); the others wait for a lease.
 */
async function fanOut(
  ctx: ServiceContext,
  subscribed: readonly repo.SubscribedEndpoint[],
  planned: readonly { event: EventToEmit }[],
  bodies: readonly EventBody[],
  payloads: readonly string[],
  at: string,
): Promise<void> {
  const deliveries = bodies.flatMap((body, i) => {
    const only = planned[i]!.event.onlyToEndpoint;
    const to = (endpointId: number) => ({ accountId: ctx.account.id, endpointId, eventId: body.id, at, i });
    if (only !== undefined) return [to(only)];
    return subscribed
      .filter(({ enabledEvents }) => matchesAny(enabledEvents, body.type))
      .map(({ endpoint }) => to(endpoint.id));
  });
  if (deliveries.length === 0) return;
  const sending = new Map(subscribed.map(({ endpoint }) => [endpoint.id, endpoint]));
  const reservation = await reserveSending(ctx, deliveries, sending);
  const room = new Map(reservation?.granted);
  const leased: typeof deliveries = [];
  const queued: typeof deliveries = [];
  for (const delivery of deliveries) {
    const left = room.get(delivery.endpointId) ?? 0;
    room.set(delivery.endpointId, left - 1);
    (left > 0 ? leased : queued).push(delivery);
  }
  await repo.insertDeliveries(ctx.db, queued);
  if (reservation) {
    const ids = await repo.insertLeasedDeliveries(ctx.db, leased, reservation.leaseUntil);
    reservation.handedOver.push(
      ...leased.map(({ endpointId, eventId, i }) => ({
        id: ids.get(`${eventId}:${endpointId}`)!,
        accountId: ctx.account.id,
        eventId,
        leaseUntil: reservation.leaseUntil,
        payload: payloads[i]!,
        endpoint: sending.get(endpointId)!,
      })),
    );
  }
  if (queued.length > 0) ctx.webhookSender?.wake(new Set(queued.map(({ endpointId }) => endpointId)));
}

/**
 * Room with this process's webhook sender for the deliveries to endpoints it can send to, held until the
 * transaction ends; undefined when there is no sender, no room, or no way to learn when the transaction ends.
 */
async function reserveSending(
  ctx: ServiceContext,
  deliveries: readonly { endpointId: number }[],
  sending: ReadonlyMap<number, unknown>,
): Promise<(SendReservation & { handedOver: HandedOverDelivery[] }) | undefined> {
  const wanted = new Map<number, number>();
  for (const { endpointId } of deliveries) {
    if (sending.has(endpointId)) wanted.set(endpointId, (wanted.get(endpointId) ?? 0) + 1);
  }
  const reservation = ctx.webhookSender?.reserve(wanted);
  if (!reservation) return undefined;
  // Filled once the deliveries are written; sent only if the transaction commits.
  const handedOver: HandedOverDelivery[] = [];
  if (await whenTransactionEnds(ctx.db, (committed) => reservation.end(committed, handedOver))) {
    return { ...reservation, handedOver };
  }
  reservation.end(false, []);
  return undefined;
}

function pick(object: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, object[k] ?? null]));
}

/**
 * Changes asked for through the API, the CLI or the capture widget's frame are recorded with who asked, from where:
 * the audit entries of the events, none when no one asked (the worker's own changes).
 */
function auditEntries(
  ctx: ServiceContext,
  planned: readonly { event: EventToEmit; previous: Record<string, unknown> | undefined }[],
  bodies: readonly EventBody[],
  at: string,
): Insertable<AuditLogTable>[] {
  const actor = ctx.actor;
  if (!actor) return [];
  return bodies.map((body, i) => {
    const { event, previous } = planned[i]!;
    const object = body.data.object;
    const deleted = event.type.endsWith('.deleted');
    const created = event.type.endsWith('.created');
    const before = deleted ? object : created ? null : (previous ?? null);
    const after = deleted ? null : created ? object : previous ? pick(object, Object.keys(previous)) : null;
    return {
      account_id: ctx.account.id,
      recorded_at: at,
      actor_type: actor.kind,
      api_key_id: actor.kind === 'api_key' ? actor.apiKeyId : null,
      client_address: actor.clientAddress,
      request_id: actor.kind === 'cli' ? null : actor.requestId,
      operation: auditOperation(actor),
      event_id: body.id,
      event_type: body.type,
      resource_type: body.resource.type,
      resource_id: String(body.resource.id),
      before: before === null ? null : JSON.stringify(before),
      after: after === null ? null : JSON.stringify(after),
    };
  });
}

/**
 * The audit entry's operation: the actor's, and for a portal contact which one, as the audit log has no column of
 * its own for it (docs/spec-decisions.md, "Customer portal").
 */
function auditOperation(actor: Actor): string {
  return actor.kind === 'widget' && actor.contactId !== undefined
    ? `${actor.operation} [customer contact ${actor.contactId}]`
    : actor.operation;
}
