import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.ts';
import { ServiceBusyError } from './customerQueue.ts';

/** How much of something a key may use per second, and how much may gather while it is idle. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets per key for several quantities at once (docs/usage.md, "Limits"): a take needs every quantity to
 * have room, and takes nothing when one has none, answering 429 with how long until it would. Per process, in
 * memory: buckets idle long enough to be full again are forgotten.
 */
export class RateBudget<Q extends string> {
  readonly #limits: Record<Q, RateLimit>;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Map<Q, Bucket>>();

  constructor(limits: Record<Q, RateLimit>, clock: Clock) {
    this.#limits = limits;
    this.#clock = clock;
  }

  /** Takes `amounts` for `key`, or throws ServiceBusyError 429 `code` saying when to send again. */
  take(key: string, amounts: Record<Q, number>, code: string, what: string): void {
    const now = this.#clock.now().getTime();
    if (this.#buckets.size > MAX_KEYS) this.#forgetFull(now);
    const buckets = this.#buckets.get(key) ?? new Map<Q, Bucket>();
    this.#buckets.set(key, buckets);
    let waitMs = 0;
    const filled = (Object.keys(amounts) as Q[]).map((quantity) => {
      const limit = this.#limits[quantity];
      const bucket = refilled(buckets.get(quantity), limit, now);
      const short = amounts[quantity] - bucket.tokens;
      if (short > 0) waitMs = Math.max(waitMs, (short / limit.perSecond) * 1000);
      return [quantity, bucket] as const;
    });
    if (waitMs > 0) {
      throw new ServiceBusyError(
        code,
        `${what}: send again after Retry-After`,
        Math.max(1, Math.ceil(waitMs / 1000)),
        429,
      );
    }
    for (const [quantity, bucket] of filled) {
      buckets.set(quantity, { tokens: bucket.tokens - amounts[quantity], at: now });
    }
  }

  #forgetFull(now: number): void {
    for (const [key, buckets] of this.#buckets) {
      const full = [...buckets].every(([quantity, bucket]) => {
        const limit = this.#limits[quantity];
        return refilled(bucket, limit, now).tokens >= limit.burst;
      });
      if (full) this.#buckets.delete(key);
    }
  }
}

/** Beyond this many keys, those whose buckets are full again are forgotten before one more is taken. */
const MAX_KEYS = 10_000;

function refilled(bucket: Bucket | undefined, limit: RateLimit, now: number): Bucket {
  if (!bucket) return { tokens: limit.burst, at: now };
  const gathered = ((now - bucket.at) / 1000) * limit.perSecond;
  return { tokens: Math.min(limit.burst, bucket.tokens + gathered), at: now };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** This process's budget of usage events per account (docs/usage.md, "Limits"). */
    usageBudget: RateBudget<'events' | 'bytes'>;
  }
}

/** Gives every request of `app` the process's one usage budget. */
export function registerUsageBudget(app: FastifyInstance, budget: RateBudget<'events' | 'bytes'>): void {
  app.decorateRequest('usageBudget', { getter: () => budget });
}
