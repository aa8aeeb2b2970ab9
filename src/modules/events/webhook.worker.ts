import type { HandedOverDelivery, SendReservation, WebhookSender } from '../../context.ts';
import type { AttemptDeps, PreparedDelivery, WebhookDeliveryDeps } from './webhookDelivery.service.ts';
import {
  LEASE_MARGIN_MS,
  attemptDelivery,
  deliveredRecorder,
  prepareDeliveries,
} from './webhookDelivery.service.ts';
import * as repo from './webhookDelivery.repository.ts';

/**
 * The worker is this process's webhook sender (see WebhookSender): `wake` asks for a round soon instead of at the
 * next interval, and `reserve` takes deliveries handed over by the transactions that write them.
 */
export interface WebhookWorker extends WebhookSender {
  /** Stops leasing, waits a bounded time for the attempts in flight, then aborts those left. */
  stop(): Promise<void>;
  /** Attempts in flight in this process (tests and the benchmark watch it). */
  inFlight(): number;
}

export interface WebhookWorkerOptions {
  intervalMs: number;
  /**
   * Requests in flight to one endpoint from this process (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT). NOTE: each process
   * has its own count, so N processes may have N times as many in flight to one endpoint.
   */
  maxInFlightPerEndpoint: number;
  /** Requests in flight from this process to all endpoints together. */
  maxInFlight?: number;
  /** How long stop() waits for attempts in flight before aborting them. */
  stopWaitMs?: number;
}

/** Endpoints one round looks at; more are served by the next round. */
const ENDPOINTS_PER_ROUND = 50;
/** A woken round waits this long, so that the transaction that queued the deliveries (and woke us) has committed. */
const WAKE_DELAY_MS = 10;
/** A second look after a wake, for a transaction that took longer to commit. */
const WAKE_AGAIN_MS = 250;

/**
 * Delivers webhooks inside the service: leases due deliveries (webhookDelivery.repository.ts), keeps at most
 * `maxInFlightPerEndpoint` requests in flight per endpoint, and leases more as attempts finish. Several processes
 * may run it against one PostgreSQL: a lease is held by one of them at a time.
 */
export function startWebhookWorker(deps: WebhookDeliveryDeps, options: WebhookWorkerOptions): WebhookWorker {
  const maxInFlight = options.maxInFlight ?? 100;
  const perEndpoint = new Map<number, number>();
  // Room promised to transactions that will hand deliveries over when they end (see reserve).
  const reserved = new Map<number, number>();
  let reservedTotal = 0;
  const active = new Set<Promise<void>>();
  const abort = new AbortController();
  let pumping: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  // Endpoints whose attempts finished since the last round: each is leased for first, without the search of every
  // endpoint with due deliveries (which reads them all); that search runs when one of them has none left, on a
  // wake and at each interval.
  const refills = new Set<number>();
  // Endpoints that may have deliveries waiting in the database (their last lease took all it asked for, or a change
  // queued some for them): an attempt that finishes there leases the next at once. Where everything was handed
  // over (see reserve), a finished attempt costs no lease.
  const backlog = new Set<number>();
  let searchAll = false;
  const wakeTimers = new Set<NodeJS.Timeout>();
  const recordDelivered = deliveredRecorder(deps.db);

  const leaseTimes = () => {
    const now = deps.clock.now();
    return {
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + deps.timeoutMs + LEASE_MARGIN_MS).toISOString(),
    };
  };

  // Requests to the endpoint in flight or promised to transactions, and the room this process has left for it.
  const taken = (endpointId: number) => (perEndpoint.get(endpointId) ?? 0) + (reserved.get(endpointId) ?? 0);
  const roomFor = (endpointId: number) =>
    Math.min(maxInFlight - active.size - reservedTotal, options.maxInFlightPerEndpoint - taken(endpointId));

  /**
   * Leases and starts what this process may send to one endpoint now: how many, or undefined when it has no room
   * for more (its requests, or this process's, are all in flight).
   */
  const leaseFor = async (
    endpointId: number,
    at: { now: string; leaseUntil: string },
  ): Promise<number | undefined> => {
    const room = roomFor(endpointId);
    if (room <= 0 || stopped) return undefined;
    const leases = await repo.leaseDueDeliveries(deps.db, at, endpointId, room);
    if (leases.length < room) backlog.delete(endpointId);
    else backlog.add(endpointId);
    if (leases.length === 0) return 0;
    perEndpoint.set(endpointId, (perEndpoint.get(endpointId) ?? 0) + leases.length);
    let prepared: Awaited<ReturnType<typeof prepareDeliveries>>;
    try {
      prepared = await prepareDeliveries(deps.db, leases);
    } catch (error) {
      for (const lease of leases) release(lease.endpointId);
      throw error;
    }
    for (const delivery of prepared) start(delivery);
    return leases.length;
  };

  /** Leases what this process may send now, endpoint by endpoint; false when nothing more can be started. */
  const leaseMore = async (): Promise<boolean> => {
    if (maxInFlight - active.size - reservedTotal <= 0) return false;
    const saturated = [...new Set([...perEndpoint.keys(), ...reserved.keys()])].filter(
      (id) => taken(id) >= options.maxInFlightPerEndpoint,
    );
    const at = leaseTimes();
    const endpoints = await repo.endpointsWithDueDeliveries(deps.db, at.now, ENDPOINTS_PER_ROUND, saturated);
    let started = 0;
    for (const endpointId of endpoints) started += (await leaseFor(endpointId, at)) ?? 0;
    // Endpoints past the first page may have work too; those on it are as full as they may be.
    return started > 0 && endpoints.length === ENDPOINTS_PER_ROUND;
  };

  /** Leases again for the endpoints whose attempts finished; true when one of them has nothing left to send. */
  const refill = async (): Promise<boolean> => {
    const endpoints = [...refills];
    refills.clear();
    const at = leaseTimes();
    let drained = false;
    for (const endpointId of endpoints) if ((await leaseFor(endpointId, at)) === 0) drained = true;
    return drained;
  };

  const start = (delivery: PreparedDelivery) => {
    const attempt = attemptDelivery(attemptDeps, delivery, recordDelivered, abort.signal)
      .catch((error: unknown) =>
        deps.log.error({ err: error, deliveryId: delivery.lease.id }, 'webhook attempt failed to complete'),
      )
      .finally(() => {
        active.delete(attempt);
        release(delivery.lease.endpointId);
        if (backlog.has(delivery.lease.endpointId)) refills.add(delivery.lease.endpointId);
        pump(false);
      });
    active.add(attempt);
  };

  const release = (endpointId: number) => {
    const count = (perEndpoint.get(endpointId) ?? 1) - 1;
    if (count <= 0) perEndpoint.delete(endpointId);
    else perEndpoint.set(endpointId, count);
  };

  const reserve = (wanted: ReadonlyMap<number, number>): SendReservation | undefined => {
    if (stopped) return undefined;
    const granted = new Map<number, number>();
    for (const [endpointId, count] of wanted) {
      const room = Math.min(count, roomFor(endpointId));
      if (room <= 0) continue;
      granted.set(endpointId, room);
      reserved.set(endpointId, (reserved.get(endpointId) ?? 0) + room);
      reservedTotal += room;
    }
    if (granted.size === 0) return undefined;
    let ended = false;
    return {
      granted,
      leaseUntil: leaseTimes().leaseUntil,
      end(committed, deliveries) {
        if (ended) return;
        ended = true;
        for (const [endpointId, room] of granted) {
          const left = (reserved.get(endpointId) ?? room) - room;
          if (left <= 0) reserved.delete(endpointId);
          else reserved.set(endpointId, left);
          reservedTotal -= room;
        }
        if (committed) sendHandedOver(deliveries);
      },
    };
  };

  /** Starts deliveries a committed transaction wrote leased to this process; a stopped worker gives them back. */
  const sendHandedOver = (deliveries: readonly HandedOverDelivery[]) => {
    const prepared: PreparedDelivery[] = deliveries.map((delivery) => ({
      lease: {
        id: delivery.id,
        accountId: delivery.accountId,
        endpointId: delivery.endpoint.id,
        eventId: delivery.eventId,
        attempts: 0,
        leaseUntil: delivery.leaseUntil,
      },
      payload: delivery.payload,
      endpoint: delivery.endpoint,
    }));
    if (stopped) {
      repo
        .releaseLeases(
          deps.db,
          prepared.map((delivery) => delivery.lease),
        )
        .catch((error: unknown) =>
          deps.log.warn({ err: error }, 'could not give back handed-over deliveries'),
        );
      return;
    }
    for (const delivery of prepared) {
      perEndpoint.set(delivery.lease.endpointId, (perEndpoint.get(delivery.lease.endpointId) ?? 0) + 1);
      start(delivery);
    }
  };

  /** A round: refills first, then, when `everyEndpoint` or a refill found nothing, the search of all endpoints. */
  function pump(everyEndpoint = true): void {
    if (stopped) return;
    if (everyEndpoint) searchAll = true;
    if (pumping) {
      again = true;
      return;
    }
    pumping = (async () => {
      try {
        do {
          again = false;
          if (await refill()) searchAll = true;
          if (searchAll) {
            searchAll = false;
            while (!stopped && (await leaseMore()));
          }
        } while (again && !stopped);
      } catch (error) {
        deps.log.error({ err: error }, 'webhook worker round failed');
      } finally {
        pumping = undefined;
      }
    })();
  }

  const later = (ms: number) => {
    const timer = setTimeout(() => {
      wakeTimers.delete(timer);
      pump();
    }, ms);
    timer.unref();
    wakeTimers.add(timer);
  };

  const wake = (endpointIds: Iterable<number> = []) => {
    for (const endpointId of endpointIds) backlog.add(endpointId);
    if (stopped || wakeTimers.size > 1) return;
    later(WAKE_DELAY_MS);
    later(WAKE_AGAIN_MS);
  };
  // The worker sends the events its attempts emit (an endpoint disabled) as it sends any change's.
  const attemptDeps: AttemptDeps = { ...deps, webhookSender: { wake, reserve } };

  const timer = setInterval(pump, options.intervalMs);
  timer.unref();
  pump();

  return {
    wake,
    reserve,
    inFlight: () => active.size,
    async stop() {
      stopped = true;
      clearInterval(timer);
      for (const wakeTimer of wakeTimers) clearTimeout(wakeTimer);
      await pumping;
      const waiting = Promise.all(active);
      let bound: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        bound = setTimeout(() => resolve('timeout'), options.stopWaitMs ?? 10_000);
      });
      if ((await Promise.race([waiting, timedOut])) === 'timeout') abort.abort();
      clearTimeout(bound);
      await waiting;
    },
  };
}
