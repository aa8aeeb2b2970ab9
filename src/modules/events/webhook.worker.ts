import type { WebhookSender } from '../../context.ts';
import type { WebhookDeliveryDeps } from './webhookDelivery.service.ts';
import { WebhookLeases, leaseTimes } from './webhookLeases.ts';
import { WebhookSends } from './webhookSends.ts';

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

/** A woken round waits this long, so that the transaction that queued the deliveries (and woke us) has committed. */
const WAKE_DELAY_MS = 10;
/** A second look after a wake, for a transaction that took longer to commit. */
const WAKE_AGAIN_MS = 250;

/**
 * Delivers webhooks inside the service, in three parts: this loop, which runs rounds (at each interval, on a wake,
 * and when an attempt ends); the lease (webhookLeases.ts), which takes due deliveries from the database; the sends
 * (webhookSends.ts), which keep at most `maxInFlightPerEndpoint` requests in flight per endpoint and take the
 * deliveries changes hand over. Several processes may run it against one PostgreSQL: a lease is held by one of
 * them at a time.
 */
export function startWebhookWorker(deps: WebhookDeliveryDeps, options: WebhookWorkerOptions): WebhookWorker {
  let pumping: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  // Whether the next round searches every endpoint with due deliveries, not only those whose attempts ended.
  let searchAll = false;
  const wakeTimers = new Set<NodeJS.Timeout>();

  const sends: WebhookSends = new WebhookSends(
    // The worker sends the events its attempts emit (an endpoint disabled) as it sends any change's.
    { ...deps, webhookSender: { wake, reserve: (wanted) => sends.reserve(wanted) } },
    { maxInFlight: options.maxInFlight ?? 100, maxInFlightPerEndpoint: options.maxInFlightPerEndpoint },
    {
      leaseUntil: () => leaseTimes(deps).leaseUntil,
      attemptEnded(endpointId) {
        leases.attemptEnded(endpointId);
        pump(false);
      },
    },
  );
  const leases = new WebhookLeases(deps, sends);

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
          if (await leases.refill()) searchAll = true;
          if (searchAll) {
            searchAll = false;
            while (!stopped && (await leases.leaseMore()));
          }
        } while (again && !stopped);
      } catch (error) {
        deps.log.error({ err: error }, 'webhook worker round failed');
      } finally {
        pumping = undefined;
      }
    })();
  }

  function later(ms: number): void {
    const timer = setTimeout(() => {
      wakeTimers.delete(timer);
      pump();
    }, ms);
    timer.unref();
    wakeTimers.add(timer);
  }

  function wake(endpointIds: Iterable<number> = []): void {
    leases.mayHaveWaiting(endpointIds);
    if (stopped || wakeTimers.size > 1) return;
    later(WAKE_DELAY_MS);
    later(WAKE_AGAIN_MS);
  }

  const timer = setInterval(pump, options.intervalMs);
  timer.unref();
  pump();

  return {
    wake,
    reserve: (wanted) => sends.reserve(wanted),
    inFlight: () => sends.inFlight(),
    async stop() {
      stopped = true;
      sends.stop();
      clearInterval(timer);
      for (const wakeTimer of wakeTimers) clearTimeout(wakeTimer);
      await pumping;
      await sends.drain(options.stopWaitMs ?? 10_000);
    },
  };
}
