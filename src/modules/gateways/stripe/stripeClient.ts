import type Stripe from 'stripe';
import { GatewayTimeoutError } from '../gatewayContract.ts';
import type { FailureReason } from '../failureReasons.ts';
import type { GatewayDecline } from '../gatewayContract.ts';
import { declineOf } from './stripeMapping.ts';

/**
 * The official SDK, made for one call from the gateway's key and the HTTP client the driver was given
 * (DriverDeps.fetch: `fetch` in production, the simulator in tests; nothing global).
 *
 * The API version is pinned to the one this SDK's types describe (it would otherwise be the account's default,
 * which a person can change in the Dashboard, changing the shape of every answer and event under us). Raising it is
 * a change of its own: a new SDK, its changelog read, docs/gateways/stripe.md's webhook endpoint version raised too.
 */
export const STRIPE_API_VERSION = '2026-10-28.endive' as const;

/**
 * The SDK, loaded by the first call. NOTE: it is 218 modules, about 60 ms to load: a service, a bill run or a
 * command that never calls Stripe does without them (docs/benchmarks.md, "Bill run").
 */
let sdk: typeof Stripe | undefined;

export async function stripeClient(
  secretKey: string,
  fetchFn: typeof fetch,
  timeoutMs: number,
): Promise<Stripe> {
  const Sdk = (sdk ??= (await import('stripe')).default);
  return new Sdk(secretKey, {
    apiVersion: STRIPE_API_VERSION,
    httpClient: Sdk.createFetchHttpClient(fetchFn),
    // NOTE: no retries of its own: the collection code asks again with the same idempotency key, and a timeout
    // must reach it as a timeout (docs/gateways.md, "Crashes and timeouts").
    maxNetworkRetries: 0,
    timeout: timeoutMs,
    // Nothing about earlier requests (their ids and durations) travels in the next one.
    telemetry: false,
  });
}

/** What a failed call says, as our answers: a decline, or no decision (`error`). */
export type CallFailure = GatewayDecline | { outcome: 'error'; reason: FailureReason; rawCode: string };

/** The error as the SDK's, or undefined; before the SDK is loaded no error can be one. */
const asStripeError = (error: unknown) =>
  sdk !== undefined && error instanceof sdk.errors.StripeError ? error : undefined;

/**
 * A call that threw. No answer (a timeout, a connection that broke) is a GatewayTimeoutError: the request may have
 * reached Stripe, so only asking again with the same key tells (never a guess). A card error is the issuer's
 * decline; anything else Stripe answered (its own failure, a refused key, a rate limit) made no decision.
 */
export function failureOf(error: unknown, operation: string): CallFailure {
  const stripeError = asStripeError(error);
  if (!stripeError) throw error;
  if (stripeError.type === 'StripeConnectionError') throw new GatewayTimeoutError(operation);
  if (stripeError.type === 'StripeCardError') return declineOf(stripeError.decline_code, stripeError.code);
  if (stripeError.type === 'StripeInvalidRequestError' && stripeError.code === 'resource_missing') {
    // The customer or the card is gone at Stripe (deleted, detached): asking again cannot succeed.
    return { outcome: 'declined', reason: 'invalid_account', rawCode: 'resource_missing' };
  }
  return {
    outcome: 'error',
    reason: 'processing_error',
    rawCode: stripeError.code ?? rawTypeOf(stripeError),
  };
}

/** `api_error`, `authentication_error`, `rate_limit_error`, `idempotency_error`, ... as Stripe names them. */
const rawTypeOf = (error: Stripe.errors.StripeError) => error.rawType ?? error.type;

export { asStripeError };
