import type Stripe from 'stripe';
import type { CardType } from '../cards.ts';
import { findCurrency } from '../../../core/currencies.ts';
import type { FailureReason } from '../failureReasons.ts';
import type { CardShownByProvider, ChargeResult, GatewayDecline } from '../gatewayContract.ts';
import { ownEntry } from '../../../core/ownEntry.ts';

/**
 * Stripe's words turned into ours: decline codes into the reasons of src/modules/gateways/failureReasons.ts, card brands into the
 * spec's CardType, a PaymentIntent's status into a ChargeResult, our amounts into Stripe's (docs/gateways/stripe.md).
 */

/**
 * Stripe's `decline_code` (the issuer's reason) and error `code`, as our reasons. A code not listed is a soft
 * decline (`card_declined`): retried on the schedule, never given up on by a guess. Stripe advises treating
 * `fraudulent`, `stolen_card` and the like as a generic decline to the cardholder; we keep them hard because a
 * retry cannot succeed.
 */
const REASONS: Readonly<Record<string, FailureReason>> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  lost_card: 'lost_card',
  pickup_card: 'lost_card',
  restricted_card: 'lost_card',
  stolen_card: 'stolen_card',
  fraudulent: 'stolen_card',
  incorrect_number: 'invalid_account',
  invalid_number: 'invalid_account',
  invalid_account: 'invalid_account',
  new_account_information_available: 'invalid_account',
  authentication_required: 'authentication_required',
  processing_error: 'processing_error',
  reenter_transaction: 'processing_error',
  try_again_later: 'processing_error',
};

/** A card error's reason: the issuer's decline code first, then Stripe's error code. */
export function reasonOf(
  declineCode: string | null | undefined,
  code: string | null | undefined,
): FailureReason {
  // NOTE: authentication_required comes as `code` with a decline_code of its own (the issuer's); the code wins.
  if (code === 'authentication_required') return 'authentication_required';
  return ownEntry(REASONS, declineCode ?? '') ?? ownEntry(REASONS, code ?? '') ?? 'card_declined';
}

export function declineOf(
  declineCode: string | null | undefined,
  code: string | null | undefined,
): GatewayDecline {
  return {
    outcome: 'declined',
    reason: reasonOf(declineCode, code),
    rawCode: declineCode ?? code ?? 'card_declined',
  };
}

/** Stripe's `card.brand` values (PaymentMethod, "card.brand") as the spec's CardType (src/modules/gateways/cards.ts). */
const BRANDS: Readonly<Record<string, CardType>> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  diners: 'Diners Club',
  discover: 'Discover',
  jcb: 'JCB',
};

export function cardShown(card: Stripe.PaymentMethod.Card): CardShownByProvider {
  return {
    cardType: ownEntry(BRANDS, card.brand) ?? 'Unknown',
    lastFour: card.last4,
    expiryMonth: card.exp_month,
    expiryYear: card.exp_year,
  };
}

/**
 * The token a later charge uses: the Stripe Customer and the PaymentMethod saved to it. Ours, opaque to callers;
 * neither id is a secret without the gateway's key.
 */
const TOKEN = /^stripe:(cus_[A-Za-z0-9]+):(pm_[A-Za-z0-9_]+)$/;

export const tokenOf = (customerId: string, paymentMethodId: string) =>
  `stripe:${customerId}:${paymentMethodId}`;

export function savedCardOf(token: string): { customerId: string; paymentMethodId: string } | undefined {
  const match = TOKEN.exec(token);
  return match ? { customerId: match[1]!, paymentMethodId: match[2]! } : undefined;
}

/**
 * Currencies whose amounts Stripe counts with more decimals than ISO 4217 (docs.stripe.com/currencies, "Special
 * cases"): ISK and UGX have no minor unit in ISO 4217, yet Stripe takes them in hundredths, whole units only.
 */
const STRIPE_DIGITS: Readonly<Record<string, number>> = { ISK: 2, UGX: 2 };

/** Our amount (the currency's ISO minor unit) in Stripe's unit for the currency: exact, never rounded. */
export function stripeAmount(amountMinor: number, currencyCode: string): number {
  const code = currencyCode.toUpperCase();
  const iso = findCurrency(code)?.minorUnitDigits;
  if (iso === undefined) throw new Error(`${currencyCode} is not an ISO 4217 currency`);
  const shift = (ownEntry(STRIPE_DIGITS, code) ?? iso) - iso;
  return amountMinor * 10 ** shift;
}

/** Stripe's amount in our unit for the currency (the currency's ISO minor unit). */
export function amountFromStripe(amount: number, currencyCode: string): number {
  return amount / stripeAmount(1, currencyCode);
}

/** The id of an expandable field of Stripe's: the id itself, or the object expanded. */
export const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : value?.id;

/** Stripe takes currency codes in lower case (docs.stripe.com/currencies). */
export const stripeCurrency = (currencyCode: string) => currencyCode.toLowerCase();

/**
 * A PaymentIntent's status as a charge's outcome. `requires_payment_method` after an attempt is its decline
 * (`last_payment_error`); `authentication_required` there means the cardholder must confirm it on session, with the
 * intent's client secret.
 */
export function chargeResultOf(intent: Stripe.PaymentIntent): ChargeResult {
  const error = intent.last_payment_error;
  switch (intent.status) {
    case 'succeeded':
      return { outcome: 'succeeded', chargeId: intent.id };
    case 'processing':
    case 'requires_capture':
      return { outcome: 'pending', chargeId: intent.id };
    case 'requires_action':
      return requiresAction(intent, 'authentication_required');
    case 'requires_payment_method':
      if (error?.code === 'authentication_required') return requiresAction(intent, error.code);
      if (error) return declineOf(error.decline_code, error.code);
      return { outcome: 'error', reason: 'processing_error', rawCode: 'no_payment_method' };
    case 'canceled':
      return { outcome: 'declined', reason: 'card_declined', rawCode: 'canceled' };
    default:
      return { outcome: 'error', reason: 'processing_error', rawCode: `status_${intent.status}` };
  }
}

function requiresAction(intent: Stripe.PaymentIntent, rawCode: string): ChargeResult {
  if (!intent.client_secret) return { outcome: 'declined', reason: 'authentication_required', rawCode };
  return {
    outcome: 'requires_action',
    chargeId: intent.id,
    action: { kind: 'client_secret', clientSecret: intent.client_secret },
    rawCode,
  };
}
