import type { PreparedDelivery, WebhookDeliveryDeps } from './webhookDelivery.service.ts';
import {
  LEASE_MARGIN_MS,
  attemptDelivery,
  deliveredRecorder,
  prepareDeliveries,
} from './webhookDelivery.service.ts';
import * as repo from './webhookDelivery.repository.ts';

export interface WebhookWorker {
  /** Asks for a round soon (a change queued deliveries), instead of at the next interval. */
  wake(): void;
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
  const active = new Set<Promise<void>>();
  const abort = new AbortController();
  let pumping: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  // Endpoints whose attempts finished since the last round: each is leased for first, without the search of every
  // endpoint with due deliveries (which reads them all); that search runs when one of them has none left, on a
  // wake and at each interval.
  const refills = new Set<number>();
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

  /**
   * Leases and starts what this process may send to one endpoint now: how many, or undefined when it has no room
   * for more (its requests, or this process's, are all in flight).
   */
  const leaseFor = async (
    endpointId: number,
    at: { now: string; leaseUntil: string },
  ): Promise<number | undefined> => {
    const room = Math.min(
      maxInFlight - active.size,
      options.maxInFlightPerEndpoint - (perEndpoint.get(endpointId) ?? 0),
    );
    if (room <= 0 || stopped) return undefined;
    const leases = await repo.leaseDueDeliveries(deps.db, at, endpointId, room);
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
    if (maxInFlight - active.size <= 0) return false;
    const saturated = [...perEndpoint]
      .filter(([, n]) => n >= options.maxInFlightPerEndpoint)
      .map(([id]) => id);
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
    const attempt = attemptDelivery(deps, delivery, recordDelivered, abort.signal)
      .catch((error: unknown) =>
        deps.log.error({ err: error, deliveryId: delivery.lease.id }, 'webhook attempt failed to complete'),
      )
      .finally(() => {
        active.delete(attempt);
        release(delivery.lease.endpointId);
        refills.add(delivery.lease.endpointId);
        pump(false);
      });
    active.add(attempt);
  };

  const release = (endpointId: number) => {
    const count = (perEndpoint.get(endpointId) ?? 1) - 1;
    if (count <= 0) perEndpoint.delete(endpointId);
    else perEndpoint.set(endpointId, count);
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

  const timer = setInterval(pump, options.intervalMs);
  timer.unref();
  pump();

  return {
    wake() {
      if (stopped || wakeTimers.size > 1) return;
      later(WAKE_DELAY_MS);
      later(WAKE_AGAIN_MS);
    },
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
