import { cardTypeOf } from '../cards.ts';
import type { FailureReason } from '../failureReasons.ts';
import type { CardShownByProvider, ChargeResult } from '../gatewayContract.ts';

/**
 * Paystack's words turned into ours (docs/gateways/paystack.md, "What Paystack answers"): a transaction's `status`
 * into a charge's outcome, its `gateway_response` (the issuer's answer, as text) into a reason of
 * src/modules/gateways/failureReasons.ts.
 */

/** A transaction as verify and charge_authorization answer it (the fields the driver reads). */
export interface PaystackTransaction {
  id?: number;
  status?: string;
  reference?: string;
  amount?: number;
  currency?: string;
  gateway_response?: string;
  paid_at?: string | null;
  authorization_url?: string;
  url?: string;
  metadata?: unknown;
  authorization?: {
    authorization_code?: string;
    last4?: string;
    exp_month?: string;
    exp_year?: string;
    card_type?: string;
    brand?: string;
    reusable?: boolean;
    channel?: string;
  };
  customer?: { email?: string };
}

/**
 * The currencies Paystack charges cards in (its OpenAPI document's `Currency`), each with the smallest amount it
 * accepts in minor units (Paystack's API reference, "Supported currency": NGN 50.00, USD 2.00, GHS 0.10, ZAR 1.00,
 * KES 3.00). A card saved without a sale is verified with this amount, refunded once the card is saved.
 */
export const PAYSTACK_MINIMUM_MINOR: Readonly<Record<string, number>> = {
  NGN: 5_000,
  USD: 200,
  GHS: 10,
  ZAR: 100,
  KES: 300,
};

export const takesCurrency = (currencyCode: string) => Object.hasOwn(PAYSTACK_MINIMUM_MINOR, currencyCode);

/** The issuer's answer as one of our reasons; anything not recognised is a plain decline (soft: tried again). */
const REASONS: readonly [RegExp, FailureReason][] = [
  [/insufficient|not sufficient|exceeds? (?:withdrawal|balance)|limit exceeded/i, 'insufficient_funds'],
  [/expired/i, 'expired_card'],
  [/stolen/i, 'stolen_card'],
  [/lost|pick.?up/i, 'lost_card'],
  [/authenticat|3d.?secure|\botp\b|\bpin\b|token not generated/i, 'authentication_required'],
  [
    /time.?out|timed out|unavailable|inoperative|system (?:error|malfunction)|try again|processing error/i,
    'processing_error',
  ],
];

export function reasonOf(gatewayResponse: string | undefined): FailureReason {
  const text = gatewayResponse ?? '';
  return REASONS.find(([pattern]) => pattern.test(text))?.[1] ?? 'card_declined';
}

/** Statuses on which Paystack waits for the customer (a PIN, an OTP, a bank's page): nothing is taken yet. */
const WAITS_FOR_CUSTOMER = new Set([
  'paused',
  'send_otp',
  'send_pin',
  'send_phone',
  'send_birthday',
  'send_address',
  'open_url',
  'pay_offline',
]);
/** Statuses on which Paystack has the charge and says later how it ended (charge.success, or failed). */
const IN_PROGRESS = new Set(['pending', 'ongoing', 'processing', 'queued']);

/** A charge's outcome from the transaction Paystack answered with (charge_authorization, or verify). */
export function chargeResultOf(transaction: PaystackTransaction, reference: string): ChargeResult {
  const status = transaction.status ?? '';
  const chargeId = transaction.reference ?? reference;
  const rawCode = transaction.gateway_response ?? status;
  if (status === 'success') return { outcome: 'succeeded', chargeId };
  if (status === 'failed' || status === 'abandoned' || status === 'reversed') {
    return { outcome: 'declined', reason: reasonOf(transaction.gateway_response), rawCode };
  }
  if (WAITS_FOR_CUSTOMER.has(status)) {
    const url = transaction.authorization_url ?? transaction.url;
    if (url)
      return { outcome: 'requires_action', chargeId, action: { kind: 'redirect', url }, rawCode: status };
    return { outcome: 'declined', reason: 'authentication_required', rawCode: status };
  }
  // In progress, or a status Paystack has added since: the charge may still go through, so it is pending and the
  // service learns its end from charge.success or asks again by our key; it is never taken as not charged.
  if (IN_PROGRESS.has(status) || status !== '') return { outcome: 'pending', chargeId };
  return { outcome: 'error', reason: 'processing_error', rawCode: 'no_status' };
}

/** The card as Paystack's authorization shows it; undefined when the answer has no card. */
export function cardShownOf(transaction: PaystackTransaction): CardShownByProvider | undefined {
  const card = transaction.authorization;
  if (!card?.last4 || !card.exp_month || !card.exp_year) return undefined;
  const brand = (card.brand ?? card.card_type ?? '').trim();
  return {
    // As cards are named everywhere else (src/modules/gateways/cards.ts): `visa` is Visa; a brand of its own (Verve) as written.
    cardType: cardTypeOf(brand) ?? (brand.replace(/\b\w/g, (letter) => letter.toUpperCase()) || 'Unknown'),
    lastFour: card.last4,
    expiryMonth: Number(card.exp_month),
    expiryYear: Number(card.exp_year),
  };
}

/** The metadata we set on a transaction at initialize: verify answers it as an object, or as JSON text. */
export function metadataOf(transaction: PaystackTransaction): Record<string, unknown> {
  const raw = transaction.metadata;
  if (raw && typeof raw === 'object') return raw as Record<string, unknown>;
  if (typeof raw === 'string' && raw.startsWith('{')) {
    try {
      return JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return {};
}
