import crypto from 'node:crypto';
import type { Clock } from '../../../clock.ts';
import type { PlainDate } from '../../../core/calendar.ts';
import type { ChargeEvent, WebhookRequest, WebhookResult } from '../gatewayContract.ts';

/**
 * Paystack's webhooks (docs/gateways/paystack.md, "Webhooks"): each request carries `x-paystack-signature`, the
 * hex HMAC-SHA512 of the raw body keyed with the secret key, and a body `{event, data}`. A request whose signature
 * does not match is refused and nothing of it is read. The events the service acts on become ChargeEvents; the
 * others are verified with no events. `reportedOn` is the UTC calendar date of the event: the time Paystack gives
 * in the body (paid_at, resolvedAt, updatedAt, createdAt), else the wall clock's when the request arrived (Paystack
 * sends refund events without a time of their own). Wall time is right there: it is when Paystack told us.
 */

type Data = Record<string, unknown>;

export function paystackSignature(secretKey: string, rawBody: Buffer): string {
  return crypto.createHmac('sha512', secretKey).update(rawBody).digest('hex');
}

function signatureMatches(secretKey: string, request: WebhookRequest): boolean {
  const given = request.headers['x-paystack-signature'] ?? '';
  if (!/^[0-9a-f]{128}$/i.test(given) || secretKey === '') return false;
  const expected = Buffer.from(paystackSignature(secretKey, request.rawBody), 'hex');
  return crypto.timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

function dateOf(data: Data, keys: readonly string[], wallClock: Clock): PlainDate {
  for (const key of keys) {
    const value = text(data[key]);
    if (value && !Number.isNaN(Date.parse(value)))
      return new Date(Date.parse(value)).toISOString().slice(0, 10);
  }
  return wallClock.now().toISOString().slice(0, 10);
}

/** What a dispute is about, in the currency's subunit as all Paystack amounts are (its `refund_amount`). */
const disputedAmount = (data: Data): { amountMinor?: number } => {
  const amount = data.refund_amount;
  return typeof amount === 'number' && Number.isSafeInteger(amount) && amount > 0
    ? { amountMinor: amount }
    : {};
};

/** The charge a dispute is about: our charge id is the transaction's reference. */
const disputedCharge = (data: Data) =>
  text((data.transaction as Data | undefined)?.reference) ?? text(data.transaction_reference);

/** Paystack's resolutions: `declined` (the dispute was refused: the business keeps the money) or the merchant's loss. */
const DISPUTE_LOST = new Set(['merchant-accepted', 'auto-accepted']);

function eventsOf(event: string, data: Data, wallClock: Clock): ChargeEvent[] {
  const on = (...keys: string[]) => dateOf(data, keys, wallClock);
  switch (event) {
    case 'charge.success': {
      const chargeId = text(data.reference);
      return chargeId
        ? [{ chargeId, kind: 'charge_settled', code: 'success', reportedOn: on('paid_at') }]
        : [];
    }
    case 'refund.processed':
    case 'refund.failed': {
      const chargeId = text(data.transaction_reference);
      const refundId = text(data.id);
      if (!chargeId || !refundId) return [];
      const failed = event === 'refund.failed';
      const kind = failed ? 'refund_failed' : 'refund_settled';
      const code = text(data.status) ?? (failed ? 'failed' : 'processed');
      return [{ chargeId, refundId, kind, code, reportedOn: on('updatedAt', 'updated_at') }];
    }
    case 'charge.dispute.create': {
      const chargeId = disputedCharge(data);
      const code = text(data.category) ?? 'dispute';
      const reportedOn = on('createdAt', 'created_at');
      return chargeId ? [{ chargeId, kind: 'dispute', code, reportedOn, ...disputedAmount(data) }] : [];
    }
    case 'charge.dispute.resolve': {
      const chargeId = disputedCharge(data);
      const resolution = text(data.resolution) ?? '';
      const kind =
        resolution === 'declined' ? 'dispute_won' : DISPUTE_LOST.has(resolution) ? 'dispute_lost' : null;
      // A resolution Paystack has added since is not guessed at: nothing is applied, and it shows in the record.
      if (!chargeId || !kind) return [];
      const reportedOn = on('resolvedAt', 'resolved_at', 'updatedAt');
      return [{ chargeId, kind, code: resolution, reportedOn, ...disputedAmount(data) }];
    }
    default:
      return [];
  }
}

export function readPaystackWebhook(
  secretKey: string,
  wallClock: Clock,
  request: WebhookRequest,
): WebhookResult {
  if (!signatureMatches(secretKey, request)) {
    return {
      outcome: 'unverified',
      message: 'x-paystack-signature does not match the body signed with the secret key',
    };
  }
  let body: { event?: unknown; data?: unknown } | null;
  try {
    body = JSON.parse(request.rawBody.toString('utf8')) as typeof body;
  } catch {
    return { outcome: 'verified', events: [] };
  }
  if (typeof body !== 'object' || body === null) return { outcome: 'verified', events: [] };
  const event = typeof body.event === 'string' ? body.event : '';
  const data = body.data && typeof body.data === 'object' ? (body.data as Data) : {};
  return { outcome: 'verified', events: eventsOf(event, data, wallClock) };
}
