import { setTimeout as pause } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * How long a hosted page's refusal for its address's rate waits before it is sent (docs/operations.md, "Hosted
 * pages under load"). A client that sends again as soon as it is answered, ignoring Retry-After, then sends about
 * one request a second on each connection instead of a thousand: a customer looping a pay link's PDF on 8
 * connections was refused ~1 000 times a second, and those answers alone (0.14 ms each on the loop, and the sender
 * beside it on the same cores) moved another account's read p99 past 100 ms on PostgreSQL (docs/benchmarks.md, "A
 * customer's PDFs in a loop").
 */
export const RATE_REFUSAL_PAUSE_MS = 1000;

/** Requests refused by a page's rate limit, until their answer is sent. */
const refusedForRate = new WeakSet<FastifyRequest>();

/** A hosted page route's `config`: at most `max` requests a minute from one client address, refusals paused. */
export function pageRateLimit(max: number) {
  return {
    rateLimit: {
      max,
      timeWindow: 60_000,
      onExceeded: (request: FastifyRequest) => {
        refusedForRate.add(request);
      },
    },
  };
}

/** Holds each refusal of pageRateLimit for RATE_REFUSAL_PAUSE_MS before it is sent; registered once, on the root. */
export function pauseRateRefusals(app: FastifyInstance): void {
  app.addHook('onSend', async (request) => {
    if (refusedForRate.has(request)) await pause(RATE_REFUSAL_PAUSE_MS);
  });
}
