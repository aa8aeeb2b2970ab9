import type { HandedOverDelivery, SendReservation } from '../../context.ts';
import type { AttemptDeps, PreparedDelivery, RecordDelivered } from './webhookDelivery.service.ts';
import { attemptDelivery, deliveredRecorder } from './webhookDelivery.service.ts';
import * as repo from './webhookDelivery.repository.ts';

/** How many requests this process may have in flight. */
export interface SendLimits {
  /** To all endpoints together. */
  maxInFlight: number;
  /** To one endpoint (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT). */
  maxInFlightPerEndpoint: number;
}

/** What the sends tell the worker around them. */
export interface SendHooks {
  /** The lease a delivery handed over is written with. */
  leaseUntil(): string;
  /** An attempt at the endpoint ended, whatever its outcome: the worker may lease the next. */
  attemptEnded(endpointId: number): void;
}

/**
 * The webhook worker's send: the attempts this process has in flight, and its room for more. Room is counted per
 * endpoint and in all, and includes what was promised to transactions that will hand deliveries over when they end
 * (`reserve`). A stopped worker has no room: it leases nothing and takes nothing handed over.
 */
export class WebhookSends {
  private readonly perEndpoint = new Map<number, number>();
  /** Room promised to transactions that will hand deliveries over when they end (see reserve). */
  private readonly reserved = new Map<number, number>();
  private reservedTotal = 0;
  private readonly active = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly recordDelivered: RecordDelivered;
  private stopped = false;

  constructor(
    /** The worker's deps, with the worker as the sender of the events its attempts emit (an endpoint disabled). */
    private readonly deps: AttemptDeps,
    private readonly limits: SendLimits,
    private readonly hooks: SendHooks,
  ) {
    this.recordDelivered = deliveredRecorder(deps.db);
  }

  /** Attempts in flight. */
  inFlight(): number {
    return this.active.size;
  }

  /** Requests this process may still start, to all endpoints together. */
  roomLeft(): number {
    return this.stopped ? 0 : this.limits.maxInFlight - this.active.size - this.reservedTotal;
  }

  /** Requests this process may still start to the endpoint. */
  roomFor(endpointId: number): number {
    return Math.min(this.roomLeft(), this.limits.maxInFlightPerEndpoint - this.taken(endpointId));
  }

  /** The endpoints that have all the requests in flight they may have. */
  fullEndpoints(): number[] {
    return [...new Set([...this.perEndpoint.keys(), ...this.reserved.keys()])].filter(
      (id) => this.taken(id) >= this.limits.maxInFlightPerEndpoint,
    );
  }

  /** Requests to the endpoint in flight or promised to transactions. */
  private taken(endpointId: number): number {
    return (this.perEndpoint.get(endpointId) ?? 0) + (this.reserved.get(endpointId) ?? 0);
  }

  /** Counts `count` leased deliveries to the endpoint as in flight, before they are started (or released). */
  hold(endpointId: number, count: number): void {
    this.perEndpoint.set(endpointId, (this.perEndpoint.get(endpointId) ?? 0) + count);
  }

  /** One of the endpoint's deliveries is no longer in flight. */
  release(endpointId: number): void {
    const count = (this.perEndpoint.get(endpointId) ?? 1) - 1;
    if (count <= 0) this.perEndpoint.delete(endpointId);
    else this.perEndpoint.set(endpointId, count);
  }

  /** Attempts a delivery already held (see hold); when it ends it is released and the worker told. */
  start(delivery: PreparedDelivery): void {
    const endpointId = delivery.lease.endpointId;
    const attempt = attemptDelivery(this.deps, delivery, this.recordDelivered, this.abort.signal)
      .catch((error: unknown) =>
        this.deps.log.error(
          { err: error, deliveryId: delivery.lease.id },
          'webhook attempt failed to complete',
        ),
      )
      .finally(() => {
        this.active.delete(attempt);
        this.release(endpointId);
        this.hooks.attemptEnded(endpointId);
      });
    this.active.add(attempt);
  }

  /** Room for up to so many deliveries to each endpoint, held until the transaction that asked ends. */
  reserve(wanted: ReadonlyMap<number, number>): SendReservation | undefined {
    const granted = new Map<number, number>();
    for (const [endpointId, count] of wanted) {
      const room = Math.min(count, this.roomFor(endpointId));
      if (room <= 0) continue;
      granted.set(endpointId, room);
      this.reserved.set(endpointId, (this.reserved.get(endpointId) ?? 0) + room);
      this.reservedTotal += room;
    }
    if (granted.size === 0) return undefined;
    let ended = false;
    return {
      granted,
      leaseUntil: this.hooks.leaseUntil(),
      end: (committed, deliveries) => {
        if (ended) return;
        ended = true;
        for (const [endpointId, room] of granted) {
          const left = (this.reserved.get(endpointId) ?? room) - room;
          if (left <= 0) this.reserved.delete(endpointId);
          else this.reserved.set(endpointId, left);
          this.reservedTotal -= room;
        }
        if (committed) this.sendHandedOver(deliveries);
      },
    };
  }

  /** Starts deliveries a committed transaction wrote leased to this process; a stopped worker gives them back. */
  private sendHandedOver(deliveries: readonly HandedOverDelivery[]): void {
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
    if (this.stopped) {
      repo
        .releaseLeases(
          this.deps.db,
          prepared.map((delivery) => delivery.lease),
        )
        .catch((error: unknown) =>
          this.deps.log.warn({ err: error }, 'could not give back handed-over deliveries'),
        );
      return;
    }
    for (const delivery of prepared) {
      this.hold(delivery.lease.endpointId, 1);
      this.start(delivery);
    }
  }

  /** Takes no more: no room is left for leases or hand-overs. */
  stop(): void {
    this.stopped = true;
  }

  /** Waits up to `waitMs` for the attempts in flight, then aborts those left. */
  async drain(waitMs: number): Promise<void> {
    const waiting = Promise.all(this.active);
    let bound: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      bound = setTimeout(() => resolve('timeout'), waitMs);
    });
    if ((await Promise.race([waiting, timedOut])) === 'timeout') this.abort.abort();
    clearTimeout(bound);
    await waiting;
  }
}
