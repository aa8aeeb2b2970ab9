/**
 * When a webhook delivery is tried again (docs/design/webhooks.md, "Retries": the Standard Webhooks example
 * schedule): the delays after each attempt, ±20 % jitter, ten attempts in all, the last about 3.1 days after the
 * first.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** `RETRY_DELAYS_MS[n]`: the wait after the n-th attempt (n from 1) before the next one. */
export const RETRY_DELAYS_MS: readonly number[] = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;
export const JITTER = 0.2;

/**
 * The wait before the next attempt after `attemptsMade` attempts, or undefined when none is left. A receiver's
 * Retry-After (429 and 503) is honoured when it asks for longer than our schedule, up to the step after the next
 * one, so that a receiver cannot push a delivery out of the schedule's days (docs/design/webhooks.md, "Retries").
 */
export function nextRetryDelayMs(
  attemptsMade: number,
  options: { random: number; retryAfterMs?: number },
): number | undefined {
  if (attemptsMade >= MAX_ATTEMPTS) return undefined;
  const base = RETRY_DELAYS_MS[attemptsMade]!;
  const scheduled = Math.round(base * (1 - JITTER + 2 * JITTER * options.random));
  if (options.retryAfterMs === undefined) return scheduled;
  const cap = RETRY_DELAYS_MS[Math.min(attemptsMade + 1, MAX_ATTEMPTS - 1)]!;
  return Math.max(scheduled, Math.min(options.retryAfterMs, cap));
}

/**
 * A Retry-After header as a wait in milliseconds: delay-seconds, or an HTTP date measured against the wall clock
 * (the receiver's date is wall-clock time); undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, wallNowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - wallNowMs);
}
