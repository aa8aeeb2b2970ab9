import type Stripe from 'stripe';
import { dateAt } from '../../../core/calendar.ts';
import type { ChargeEvent, WebhookRequest, WebhookResult } from '../gatewayContract.ts';
import { amountFromStripe, idOf, reasonOf } from './stripeMapping.ts';

/**
 * Stripe's webhooks (docs/gateways/stripe.md, "Webhooks"): verified with Stripe's own scheme (the
 * `Stripe-Signature` header, an HMAC of the timestamp and the raw body under the endpoint's signing secret), then
 * read into late events on charges. Kinds the service does not act on are verified with no events.
 */

/** Stripe's default tolerance: a signature older than five minutes is refused, so a replayed request is. */
const TOLERANCE_SECONDS = 300;

/**
 * Verifies and reads one webhook request. `receivedAtMs` is wall time in milliseconds (the SDK's unit for it): a
 * signature's timestamp is compared with real time, whatever a test account's clock shows (docs/architecture.md,
 * "Two clocks").
 */
export function readStripeWebhook(
  stripe: Stripe,
  webhookSecret: string,
  request: WebhookRequest,
  receivedAtMs: number,
): WebhookResult {
  const header = headerOf(request, 'stripe-signature');
  if (!header) return { outcome: 'unverified', message: 'the request has no Stripe-Signature header' };
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(
      request.rawBody,
      header,
      webhookSecret,
      TOLERANCE_SECONDS,
      undefined,
      receivedAtMs,
    );
  } catch (error) {
    return { outcome: 'unverified', message: (error as Error).message };
  }
  // NOTE: the SDK refuses only a signature too old; one dated ahead of now by more than the tolerance is refused
  // here too, or a signature captured with a forged far-future time would replay for ever
  // (docs/gateways/stripe.md, "Webhooks").
  const signedAt = signedAtOf(header);
  if (signedAt === undefined || signedAt * 1000 > receivedAtMs + TOLERANCE_SECONDS * 1000) {
    return { outcome: 'unverified', message: 'the signature is dated in the future, past the tolerance' };
  }
  return { outcome: 'verified', events: chargeEventsOf(event) };
}

/** The latest `t=` timestamp of a `Stripe-Signature` header, in seconds; undefined when there is none. */
function signedAtOf(header: string): number | undefined {
  const stamps = header
    .split(',')
    .map((part) => part.trim().split('='))
    .filter(([key, value]) => key === 't' && value !== undefined && /^\d+$/.test(value))
    .map(([, value]) => Number(value));
  return stamps.length === 0 ? undefined : Math.max(...stamps);
}

function headerOf(request: WebhookRequest, name: string): string | undefined {
  const found = Object.entries(request.headers).find(([key]) => key.toLowerCase() === name);
  return found?.[1];
}

/** The late events one Stripe event tells of; none for the kinds the service does not act on. */
export function chargeEventsOf(event: Stripe.Event): ChargeEvent[] {
  // Stripe's `created` is in seconds since the epoch; the business date it is reported on is its UTC date.
  const reportedOn = dateAt(new Date(event.created * 1000), 'UTC');
  switch (event.type) {
    case 'payment_intent.succeeded':
      return [{ chargeId: event.data.object.id, kind: 'charge_settled', code: 'succeeded', reportedOn }];
    case 'setup_intent.succeeded':
      return [{ chargeId: event.data.object.id, kind: 'setup_succeeded', code: 'succeeded', reportedOn }];
    case 'payment_intent.payment_failed': {
      const error = event.data.object.last_payment_error;
      const code = error?.decline_code ?? error?.code ?? 'payment_failed';
      const reason = reasonOf(error?.decline_code, error?.code);
      return [{ chargeId: event.data.object.id, kind: 'charge_failed', code, reason, reportedOn }];
    }
    case 'charge.refund.updated':
    case 'refund.updated':
      return refundEvents(event.data.object, reportedOn);
    case 'charge.dispute.created':
      // An inquiry (`warning_*`) takes no money back; it becomes a chargeback with funds_withdrawn, read below.
      if (event.data.object.status.startsWith('warning_')) return [];
      return [disputeEvent(event.data.object, 'dispute', reportedOn)];
    case 'charge.dispute.funds_withdrawn':
      return [disputeEvent(event.data.object, 'dispute', reportedOn)];
    case 'charge.dispute.closed': {
      const status = event.data.object.status;
      if (status === 'won') return [disputeEvent(event.data.object, 'dispute_won', reportedOn)];
      if (status === 'lost') return [disputeEvent(event.data.object, 'dispute_lost', reportedOn)];
      return [];
    }
    default:
      return [];
  }
}

/** A refund's final status; `pending` and `requires_action` say nothing yet. */
function refundEvents(refund: Stripe.Refund, reportedOn: string): ChargeEvent[] {
  // Our charge ids are PaymentIntents'; a refund of a bare Charge (made outside the service) names its charge.
  const chargeId = idOf(refund.payment_intent) ?? idOf(refund.charge);
  if (!chargeId) return [];
  const base = { chargeId, refundId: refund.id, reportedOn };
  if (refund.status === 'succeeded') return [{ ...base, kind: 'refund_settled', code: 'succeeded' }];
  if (refund.status === 'failed' || refund.status === 'canceled') {
    return [{ ...base, kind: 'refund_failed', code: refund.failure_reason ?? refund.status }];
  }
  return [];
}

function disputeEvent(dispute: Stripe.Dispute, kind: ChargeEvent['kind'], reportedOn: string): ChargeEvent {
  const chargeId = idOf(dispute.payment_intent) ?? idOf(dispute.charge) ?? dispute.id;
  const amountMinor = amountFromStripe(dispute.amount, dispute.currency);
  return { chargeId, kind, code: dispute.reason, reportedOn, amountMinor };
}
