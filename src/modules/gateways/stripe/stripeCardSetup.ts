import type Stripe from 'stripe';
import type {
  CardSetupRequest,
  CardSetupResult,
  CardSetupStart,
  GatewayTarget,
  HostedFields,
  HostedFieldsRequest,
  PayerDetails,
} from '../gatewayContract.ts';
import { failureOf } from './stripeClient.ts';
import {
  cardShown,
  declineOf,
  idOf,
  savedCardOf,
  stripeAmount,
  stripeCurrency,
  tokenOf,
} from './stripeMapping.ts';

/**
 * A card saved, or a sale made, in Stripe's Payment Element (docs/gateways/stripe.md, "The capture frame"): the
 * deferred-intent flow. The frame mounts the Element without an intent (`hostedFieldsOf`); on submit the service
 * creates the SetupIntent or PaymentIntent (`startSetup`) and the frame confirms it with its client secret; then the
 * service asks Stripe how it went (`completeSetup`), never taking the browser's word.
 */

/**
 * The origins Stripe.js needs in the frame's Content-Security-Policy (Stripe's integration security guide,
 * "Content Security Policy"): its script and frames, its API, and its 3-D Secure pages.
 */
const ORIGINS = [
  'https://js.stripe.com',
  'https://*.js.stripe.com',
  'https://api.stripe.com',
  'https://hooks.stripe.com',
] as const;

/**
 * The Stripe.js release that matches the pinned API version (Stripe's "Stripe.js versioning and support policy"):
 * Endive's Elements take `allowedPaymentMethodTypes` (the `paymentMethodTypes` of v3 was removed in Endive).
 */
export const STRIPE_JS_URL = 'https://js.stripe.com/endive/stripe.js';

/**
 * What the frame mounts the Payment Element with; no call is made. Cards only, as the gateway type takes cards
 * only: the intents allow `card` alone (`allowed_payment_method_types`, Stripe's changelog 2026-07-29, which
 * replaced `payment_method_types`, refused from 2026-09-30), and the Element is told the same.
 */
export function hostedFieldsOf(publishableKey: string, request: HostedFieldsRequest): HostedFields {
  const sale = request.amountMinor !== undefined;
  const mount: Record<string, string> = {
    publishableKey,
    mode: sale ? 'payment' : 'setup',
    currency: stripeCurrency(request.currencyCode),
    allowedPaymentMethodTypes: 'card',
  };
  if (request.amountMinor !== undefined) {
    mount.amount = String(stripeAmount(request.amountMinor, request.currencyCode));
  }
  // The Element's options must match the intent's (Stripe's deferred-intent guide): a saved card is set up for
  // charges off session, and so is a sale's card when it is kept.
  if (!sale || request.keepCard) mount.setupFutureUsage = 'off_session';
  return {
    provider: 'stripe',
    scriptUrl: STRIPE_JS_URL,
    origins: ORIGINS,
    mount,
    needsEmail: false,
    confirmsStoredCard: true,
  };
}

/** Stripe's search syntax quotes a value in single quotes; a quote or backslash inside is escaped. */
export const searchValue = (value: string) => `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/**
 * The payer's Stripe Customer, found by our reference in its metadata or made. NOTE: Stripe's search sees a new
 * customer within a minute or so, so two setups of a new payer in that minute may make two customers; the
 * second key derived from ours makes asking again for one setup answer the same customer.
 */
async function customerFor(
  stripe: Stripe,
  target: GatewayTarget,
  payer: PayerDetails,
  idempotencyKey: string,
): Promise<string> {
  const query = `metadata['billing_payer']:${searchValue(payer.ref)} AND metadata['billing_gateway']:${searchValue(String(target.id))}`;
  const found = await stripe.customers.search({ query, limit: 1 });
  if (found.data[0]) return found.data[0].id;
  const customer = await stripe.customers.create(
    {
      name: payer.name,
      ...(payer.email ? { email: payer.email } : {}),
      metadata: { billing_payer: payer.ref, billing_gateway: String(target.id) },
    },
    { idempotencyKey: `${idempotencyKey}:customer` },
  );
  return customer.id;
}

export async function startSetup(
  stripe: Stripe,
  target: GatewayTarget,
  request: CardSetupRequest,
): Promise<CardSetupStart> {
  if (request.storedToken !== undefined) return confirmStoredCard(stripe, request, request.storedToken);
  try {
    const customer = await customerFor(stripe, target, request.payer, request.idempotencyKey);
    const metadata = { billing_key: request.idempotencyKey };
    const options = { idempotencyKey: request.idempotencyKey };
    if (request.amountMinor === undefined) {
      const intent = await stripe.setupIntents.create(
        {
          customer,
          usage: 'off_session',
          allowed_payment_method_types: ['card'],
          description: request.description,
          metadata,
        },
        options,
      );
      return started(intent.id, intent.client_secret, 'setup');
    }
    const intent = await stripe.paymentIntents.create(
      {
        amount: stripeAmount(request.amountMinor, request.currencyCode),
        currency: stripeCurrency(request.currencyCode),
        customer,
        allowed_payment_method_types: ['card'],
        description: request.description,
        metadata,
        ...(request.keepCard ? { setup_future_usage: 'off_session' as const } : {}),
      },
      options,
    );
    return started(intent.id, intent.client_secret, 'payment');
  } catch (error) {
    return failureOf(error, 'start_card_setup');
  }
}

/**
 * A sale of a saved card with the cardholder present (Stripe's "Finalize payments on the server"): the
 * PaymentIntent is made for the card's Customer and PaymentMethod and confirmed at once, on session, with
 * `use_stripe_sdk` so that a bank that asks for the cardholder leaves it `requires_action` for Stripe.js's
 * `handleNextAction` in the page (`confirm.nextAction`). A decline is an answer like the frame's; the outcome is
 * asked of Stripe afterwards by `completeSetup`, as for any setup.
 */
async function confirmStoredCard(
  stripe: Stripe,
  request: CardSetupRequest,
  storedToken: string,
): Promise<CardSetupStart> {
  const saved = savedCardOf(storedToken);
  if (!saved) return { outcome: 'declined', reason: 'invalid_account', rawCode: 'no_such_token' };
  try {
    const intent = await stripe.paymentIntents.create(
      {
        amount: stripeAmount(request.amountMinor ?? 0, request.currencyCode),
        currency: stripeCurrency(request.currencyCode),
        customer: saved.customerId,
        payment_method: saved.paymentMethodId,
        allowed_payment_method_types: ['card'],
        confirm: true,
        use_stripe_sdk: true,
        description: request.description,
        metadata: { billing_key: request.idempotencyKey },
      },
      { idempotencyKey: request.idempotencyKey },
    );
    if (intent.status !== 'requires_action') return { outcome: 'ok', setupRef: intent.id, confirm: {} };
    return started(intent.id, intent.client_secret, 'payment', { nextAction: 'handle' });
  } catch (error) {
    return failureOf(error, 'start_card_setup');
  }
}

function started(
  setupRef: string,
  clientSecret: string | null,
  intent: 'setup' | 'payment',
  more: Record<string, string> = {},
): CardSetupStart {
  if (!clientSecret) return { outcome: 'error', reason: 'processing_error', rawCode: 'no_client_secret' };
  return { outcome: 'ok', setupRef, confirm: { clientSecret, intent, ...more } };
}

/** How the setup went, from Stripe's own record of the intent: a SetupIntent (`seti_`) or a PaymentIntent. */
export async function completeSetup(stripe: Stripe, setupRef: string): Promise<CardSetupResult> {
  try {
    if (setupRef.startsWith('seti_')) {
      const intent = await stripe.setupIntents.retrieve(setupRef, { expand: ['payment_method'] });
      return setupResultOf(intent);
    }
    const intent = await stripe.paymentIntents.retrieve(setupRef, { expand: ['payment_method'] });
    return saleResultOf(intent);
  } catch (error) {
    return failureOf(error, 'complete_card_setup');
  }
}

function cardOf(paymentMethod: string | Stripe.PaymentMethod | null) {
  return typeof paymentMethod === 'object' && paymentMethod?.card
    ? { id: paymentMethod.id, card: cardShown(paymentMethod.card) }
    : undefined;
}

function setupResultOf(intent: Stripe.SetupIntent): CardSetupResult {
  const error = intent.last_setup_error;
  if (intent.status === 'requires_payment_method' && error) return declineOf(error.decline_code, error.code);
  if (intent.status === 'canceled')
    return { outcome: 'declined', reason: 'card_declined', rawCode: 'canceled' };
  if (intent.status !== 'succeeded') return { outcome: 'incomplete' };
  const method = cardOf(intent.payment_method);
  const customer = idOf(intent.customer);
  if (!method || !customer) return { outcome: 'error', reason: 'processing_error', rawCode: 'no_card' };
  return { outcome: 'ok', token: tokenOf(customer, method.id), card: method.card };
}

function saleResultOf(intent: Stripe.PaymentIntent): CardSetupResult {
  const error = intent.last_payment_error;
  if (intent.status === 'requires_payment_method' && error) return declineOf(error.decline_code, error.code);
  if (intent.status === 'canceled')
    return { outcome: 'declined', reason: 'card_declined', rawCode: 'canceled' };
  if (intent.status !== 'succeeded' && intent.status !== 'processing') return { outcome: 'incomplete' };
  const method = cardOf(intent.payment_method);
  const customer = idOf(intent.customer);
  if (!method) return { outcome: 'error', reason: 'processing_error', rawCode: 'no_card' };
  // Only a card set up for later charges off session is kept: Stripe attached it to the customer.
  const kept = intent.setup_future_usage === 'off_session' && customer;
  return {
    outcome: 'ok',
    token: kept ? tokenOf(customer, method.id) : null,
    card: method.card,
    charge: { chargeId: intent.id, state: intent.status === 'succeeded' ? 'succeeded' : 'pending' },
  };
}
