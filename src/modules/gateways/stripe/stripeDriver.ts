import type Stripe from 'stripe';
import type {
  ChargeLookup,
  ChargeRequest,
  ChargeResult,
  DriverDeps,
  DriverModule,
  GatewayDriver,
  RefundRequest,
  RefundResult,
  SettingsCheck,
} from '../gatewayContract.ts';
import { GatewayTimeoutError, PROVIDER_TIMEOUT_MS } from '../gatewayContract.ts';
import { completeSetup, hostedFieldsOf, searchValue, startSetup } from './stripeCardSetup.ts';
import { asStripeError, failureOf, stripeClient } from './stripeClient.ts';
import { chargeResultOf, savedCardOf, stripeAmount, stripeCurrency } from './stripeMapping.ts';
import { readStripeSettings, stripeSettingsProblems } from './stripeSettings.ts';
import { readStripeWebhook } from './stripeWebhooks.ts';

/**
 * The Stripe driver (docs/gateways/stripe.md): cards in Stripe's Payment Element, charged off session with
 * PaymentIntents, refunds, and late events from Stripe's webhooks. It keeps no state of its own: Stripe holds the
 * customers, cards and charges, under our idempotency keys and metadata.
 */

export interface StripeDriverOptions {
  /** How long a call may take before it counts as unanswered (GatewayTimeoutError). */
  timeoutMs?: number;
}

export function stripeDriver(deps: DriverDeps, options: StripeDriverOptions = {}): GatewayDriver {
  const settings = readStripeSettings(deps.settings);
  const client = () => stripeClient(settings.secretKey, deps.fetch, options.timeoutMs ?? PROVIDER_TIMEOUT_MS);
  return {
    hostedFields: (_target, request) => hostedFieldsOf(settings.publishableKey, request),
    startCardSetup: async (target, request) => startSetup(await client(), target, request),
    completeCardSetup: async (_target, setupRef) => completeSetup(await client(), setupRef),
    charge: async (_target, request) => charge(await client(), request),
    findCharge: async (_target, idempotencyKey) => findCharge(await client(), idempotencyKey),
    refund: async (_target, request) => refund(await client(), request),
    readWebhook: async (_target, request) =>
      // Wall time: a signature's timestamp is compared with real time (docs/architecture.md, "Two clocks").
      readStripeWebhook(await client(), settings.webhookSecret, request, deps.wallClock.now().getTime()),
    checkSettings: async (target) => checkSettings(await client(), target.isTestMode),
  };
}

export const stripeDriverModule: DriverModule = {
  checksSettings: true,
  create: (deps) => stripeDriver(deps),
  settingsProblems: stripeSettingsProblems,
};

/**
 * An off-session charge of a saved card (Stripe's "charge saved payment methods later"): a PaymentIntent confirmed
 * at once, under our idempotency key, with the key in its metadata so that `findCharge` finds it after Stripe
 * forgets the key. NOTE: `authenticated` has no use here: with Stripe the cardholder's challenge runs in the
 * Payment Element, which confirms the intent itself.
 */
async function charge(stripe: Stripe, request: ChargeRequest): Promise<ChargeResult> {
  const saved = savedCardOf(request.token);
  if (!saved) return { outcome: 'declined', reason: 'invalid_account', rawCode: 'no_such_token' };
  try {
    const intent = await stripe.paymentIntents.create(
      {
        amount: stripeAmount(request.amountMinor, request.currencyCode),
        currency: stripeCurrency(request.currencyCode),
        customer: saved.customerId,
        payment_method: saved.paymentMethodId,
        confirm: true,
        off_session: true,
        description: request.description,
        metadata: { billing_key: request.idempotencyKey },
      },
      { idempotencyKey: request.idempotencyKey },
    );
    return chargeResultOf(intent);
  } catch (error) {
    // A decline comes as an error carrying the intent: its status says what the customer can do about it.
    const intent = asStripeError(error)?.payment_intent;
    if (intent && asStripeError(error)?.type === 'StripeCardError') return chargeResultOf(intent);
    return failureOf(error, 'charge');
  }
}

/**
 * The charge made under our key, found by the key in its metadata with Stripe's Search API: Stripe's idempotency
 * keys expire after 24 hours, a crashed attempt may be finished later than that (docs/gateways.md, "Crashes and
 * timeouts"). NOTE: search sees a new intent within about a minute; asked sooner, the key itself still answers.
 */
async function findCharge(stripe: Stripe, idempotencyKey: string): Promise<ChargeLookup> {
  try {
    const found = await stripe.paymentIntents.search({
      query: `metadata['billing_key']:${searchValue(idempotencyKey)}`,
      limit: 10,
    });
    // One intent per key; were there more, the one that took money is the answer.
    const intent = found.data.find((each) => each.status === 'succeeded') ?? found.data[0];
    return intent ? chargeResultOf(intent) : { outcome: 'not_found' };
  } catch (error) {
    return failureOf(error, 'find_charge');
  }
}

/** A refund of part or all of a charge (a PaymentIntent), under our key; card refunds are often `pending` first. */
async function refund(stripe: Stripe, request: RefundRequest): Promise<RefundResult> {
  try {
    const made = await stripe.refunds.create(
      {
        payment_intent: request.chargeId,
        amount: stripeAmount(request.amountMinor, request.currencyCode),
        metadata: { billing_key: request.idempotencyKey },
      },
      { idempotencyKey: request.idempotencyKey },
    );
    switch (made.status) {
      case 'succeeded':
        return { outcome: 'succeeded', refundId: made.id };
      case 'failed':
      case 'canceled':
        return { outcome: 'declined', reason: 'card_declined', rawCode: made.failure_reason ?? made.status };
      default:
        return { outcome: 'pending', refundId: made.id };
    }
  } catch (error) {
    const stripeError = asStripeError(error);
    // Refused outright: already refunded, more than is left, a disputed charge. Asking again cannot succeed.
    if (stripeError?.type === 'StripeInvalidRequestError' && stripeError.code) {
      return { outcome: 'declined', reason: 'card_declined', rawCode: stripeError.code };
    }
    return failureOf(error, 'refund');
  }
}

/** Permissions a restricted key needs (docs/gateways/stripe.md, "Keys"). */
const PERMISSIONS = 'Customers, SetupIntents, PaymentIntents and Refunds: write; PaymentMethods: read';

/**
 * The secret key tried with a cheap call the driver needs anyway (listing one PaymentIntent). The publishable key
 * and the webhook secret cannot be tried from here: the frame and the first webhook show them.
 */
async function checkSettings(stripe: Stripe, isTestMode: boolean): Promise<SettingsCheck> {
  try {
    await stripe.paymentIntents.list({ limit: 1 });
    const mode = isTestMode ? 'test' : 'live';
    return {
      outcome: 'ok',
      detail: `Stripe accepted the ${mode}-mode secret key and its PaymentIntents permission`,
    };
  } catch (error) {
    if (error instanceof GatewayTimeoutError) throw error;
    const stripeError = asStripeError(error);
    switch (stripeError?.type) {
      case 'StripeAuthenticationError':
        return { outcome: 'refused', message: `Stripe refused the secret key: ${stripeError.message}` };
      case 'StripePermissionError':
        return {
          outcome: 'refused',
          message: `the restricted key lacks a permission the gateway needs (${PERMISSIONS}): ${stripeError.message}`,
        };
      case 'StripeConnectionError':
        return { outcome: 'refused', message: 'Stripe did not answer: check the network and try again' };
      default:
        return { outcome: 'refused', message: `Stripe answered: ${stripeError?.message ?? String(error)}` };
    }
  }
}
