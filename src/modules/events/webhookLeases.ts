import type { WebhookDeliveryDeps } from './webhookDelivery.service.ts';
import { LEASE_MARGIN_MS, prepareDeliveries } from './webhookDelivery.service.ts';
import * as repo from './webhookDelivery.repository.ts';
import type { WebhookSends } from './webhookSends.ts';

/** Endpoints one search looks at; more are served by the next. */
const ENDPOINTS_PER_SEARCH = 50;

/** The lease a delivery taken now gets: longer than its attempt may take. */
export function leaseTimes(deps: WebhookDeliveryDeps): { now: string; leaseUntil: string } {
  const now = deps.clock.now();
  return {
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + deps.timeoutMs + LEASE_MARGIN_MS).toISOString(),
  };
}

/**
 * The webhook worker's lease: takes due deliveries from the database (webhookDelivery.repository.ts), as many as the
 * sends have room for, and starts them. It remembers which endpoints may have more waiting, so that an attempt that
 * ends there leases the next at once (a refill) without the search of every endpoint, which reads them all.
 */
export class WebhookLeases {
  /** Endpoints whose attempts ended since the last round: each is leased for first. */
  private readonly refills = new Set<number>();
  /**
   * Endpoints that may have deliveries waiting in the database (their last lease took all it asked for, or a change
   * queued some for them): an attempt that ends there leases the next at once. Where everything was handed over,
   * a finished attempt costs no lease.
   */
  private readonly backlog = new Set<number>();

  constructor(
    private readonly deps: WebhookDeliveryDeps,
    private readonly sends: WebhookSends,
  ) {}

  /** A change queued deliveries for these endpoints without handing them over. */
  mayHaveWaiting(endpointIds: Iterable<number>): void {
    for (const endpointId of endpointIds) this.backlog.add(endpointId);
  }

  /** An attempt at the endpoint ended: the next round leases for it first, if it may have more waiting. */
  attemptEnded(endpointId: number): void {
    if (this.backlog.has(endpointId)) this.refills.add(endpointId);
  }

  /** Leases again for the endpoints whose attempts ended; true when one of them has nothing left to send. */
  async refill(): Promise<boolean> {
    const endpoints = [...this.refills];
    this.refills.clear();
    const at = leaseTimes(this.deps);
    let drained = false;
    for (const endpointId of endpoints) if ((await this.leaseFor(endpointId, at)) === 0) drained = true;
    return drained;
  }

  /**
   * Searches the endpoints with due deliveries and leases for each, as far as there is room; true when endpoints
   * past the first page may have work too (those on it are as full as they may be).
   */
  async leaseMore(): Promise<boolean> {
    if (this.sends.roomLeft() <= 0) return false;
    const at = leaseTimes(this.deps);
    const endpoints = await repo.endpointsWithDueDeliveries(
      this.deps.db,
      at.now,
      ENDPOINTS_PER_SEARCH,
      this.sends.fullEndpoints(),
    );
    let started = 0;
    for (const endpointId of endpoints) started += (await this.leaseFor(endpointId, at)) ?? 0;
    return started > 0 && endpoints.length === ENDPOINTS_PER_SEARCH;
  }

  /**
   * Leases and starts what this process may send to one endpoint now: how many, or undefined when it has no room
   * for more (its requests, or this process's, are all in flight).
   */
  private async leaseFor(
    endpointId: number,
    at: { now: string; leaseUntil: string },
  ): Promise<number | undefined> {
    const room = this.sends.roomFor(endpointId);
    if (room <= 0) return undefined;
    const leases = await repo.leaseDueDeliveries(this.deps.db, at, endpointId, room);
    if (leases.length < room) this.backlog.delete(endpointId);
    else this.backlog.add(endpointId);
    if (leases.length === 0) return 0;
    this.sends.hold(endpointId, leases.length);
    let prepared: Awaited<ReturnType<typeof prepareDeliveries>>;
    try {
      prepared = await prepareDeliveries(this.deps.db, leases);
    } catch (error) {
      for (const lease of leases) this.sends.release(lease.endpointId);
      throw error;
    }
    for (const delivery of prepared) this.sends.start(delivery);
    return leases.length;
  }
}
