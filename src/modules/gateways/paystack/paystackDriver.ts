import type {
  CardSetupRequest,
  CardSetupResult,
  CardSetupStart,
  ChargeLookup,
  ChargeRequest,
  ChargeResult,
  DriverDeps,
  DriverModule,
  GatewayDriver,
  GatewayTarget,
  HostedFields,
  HostedFieldsRequest,
  RefundRequest,
  RefundResult,
  SettingsCheck,
} from '../gatewayContract.ts';
import { GatewayTimeoutError, PROVIDER_TIMEOUT_MS } from '../gatewayContract.ts';
import {
  isDuplicateReference,
  isNotFound,
  isServerError,
  isUnauthorized,
  paystackClient,
} from './paystackApi.ts';
import type { PaystackAnswer, PaystackClient } from './paystackApi.ts';
import {
  PAYSTACK_MINIMUM_MINOR,
  cardShownOf,
  chargeResultOf,
  metadataOf,
  reasonOf,
  takesCurrency,
} from './paystackOutcomes.ts';
import type { PaystackTransaction } from './paystackOutcomes.ts';
import { fromCardToken, toCardToken, toReference } from './paystackReference.ts';
import { paystackRefund } from './paystackRefunds.ts';
import { keyMode, paystackSettingsOf, paystackSettingsProblems } from './paystackSettings.ts';
import { readPaystackWebhook } from './paystackWebhook.ts';

/**
 * The Paystack driver (docs/gateways/paystack.md): cards entered in Paystack's Inline JS popup, saved as reusable
 * authorizations, renewed with charge_authorization, refunded, and Paystack's webhooks read into late events.
 * Paystack takes no idempotency header: our idempotency key is the transaction's reference (toReference), which
 * Paystack keeps unique, so asking again with the same key finds the first charge instead of making a second.
 */

/** Inline JS v2 loads from js.paystack.co, opens its popup from checkout.paystack.com and calls api.paystack.co. */
export const PAYSTACK_INLINE_SCRIPT = 'https://js.paystack.co/v2/inline.js';
const PAYSTACK_ORIGINS = [
  'https://js.paystack.co',
  'https://checkout.paystack.com',
  'https://api.paystack.co',
];

/** What the driver needs of DriverDeps: no database (Paystack keeps its own state). */
export type PaystackDeps = Pick<DriverDeps, 'settings' | 'fetch' | 'wallClock'>;

export interface PaystackOptions {
  /** How long a call may take (PROVIDER_TIMEOUT_MS); tests shorten it. */
  timeoutMs?: number;
}

const unsupportedCurrency = (currencyCode: string) => ({
  outcome: 'error' as const,
  reason: 'processing_error' as const,
  rawCode: `unsupported_currency_${currencyCode}`,
});

/** A refusal of the key in words: every operation but checkSettings answers it as an error with no decision. */
const refusedKey = (answer: PaystackAnswer) => ({
  outcome: 'error' as const,
  reason: 'processing_error' as const,
  rawCode: `unauthorized: ${answer.message}`,
});

async function verify(client: PaystackClient, operation: string, reference: string) {
  return client.call(operation, 'GET', `/transaction/verify/${encodeURIComponent(reference)}`);
}

/** A charge's outcome asked of Paystack by its reference: `not_found` when Paystack has none. */
async function lookUpCharge(
  client: PaystackClient,
  operation: string,
  reference: string,
): Promise<ChargeLookup> {
  const answer = await verify(client, operation, reference);
  if (isUnauthorized(answer)) return refusedKey(answer);
  if (isNotFound(answer)) return { outcome: 'not_found' };
  if (!answer.status || isServerError(answer)) throw new GatewayTimeoutError(operation);
  return chargeResultOf(answer.data as PaystackTransaction, reference);
}

function hostedFields(settingsPublicKey: string, _request: HostedFieldsRequest): HostedFields {
  return {
    provider: 'paystack',
    scriptUrl: PAYSTACK_INLINE_SCRIPT,
    origins: PAYSTACK_ORIGINS,
    mount: { publicKey: settingsPublicKey },
    needsEmail: true,
  };
}

async function startCardSetup(client: PaystackClient, request: CardSetupRequest): Promise<CardSetupStart> {
  if (!takesCurrency(request.currencyCode)) return unsupportedCurrency(request.currencyCode);
  if (!request.payer.email) {
    return { outcome: 'error', reason: 'processing_error', rawCode: 'email_required' };
  }
  // Paystack has no zero-amount setup: a card saved without a sale is verified with the smallest amount Paystack
  // takes in the currency, refunded once the card is saved (completeCardSetup).
  const verificationOnly = request.amountMinor === undefined;
  const reference = toReference(request.idempotencyKey);
  const answer = await client.call('start_card_setup', 'POST', '/transaction/initialize', {
    email: request.payer.email,
    amount: request.amountMinor ?? PAYSTACK_MINIMUM_MINOR[request.currencyCode],
    currency: request.currencyCode,
    reference,
    channels: ['card'],
    metadata: {
      payer_ref: request.payer.ref,
      keep_card: request.keepCard,
      verification_only: verificationOnly,
      description: request.description,
    },
  });
  if (isUnauthorized(answer)) return refusedKey(answer);
  if (isDuplicateReference(answer)) {
    // The same key started a setup already: its access code was in the first answer, which the service keeps.
    return { outcome: 'error', reason: 'processing_error', rawCode: 'duplicate_reference' };
  }
  const data = answer.data as { access_code?: string; reference?: string } | undefined;
  if (!answer.status || !data?.access_code) {
    if (isServerError(answer)) throw new GatewayTimeoutError('start_card_setup');
    return { outcome: 'error', reason: 'processing_error', rawCode: answer.message };
  }
  return { outcome: 'ok', setupRef: data.reference ?? reference, confirm: { accessCode: data.access_code } };
}

async function completeCardSetup(client: PaystackClient, setupRef: string): Promise<CardSetupResult> {
  const answer = await verify(client, 'complete_card_setup', setupRef);
  if (isUnauthorized(answer)) return refusedKey(answer);
  if (isNotFound(answer)) return { outcome: 'error', reason: 'processing_error', rawCode: 'setup_not_found' };
  if (!answer.status) throw new GatewayTimeoutError('complete_card_setup');
  const transaction = answer.data as PaystackTransaction;
  const status = transaction.status ?? '';
  if (status === 'failed' || status === 'reversed') {
    const rawCode = transaction.gateway_response ?? status;
    return { outcome: 'declined', reason: reasonOf(transaction.gateway_response), rawCode };
  }
  if (status !== 'success') return { outcome: 'incomplete' };
  const card = cardShownOf(transaction);
  if (!card) return { outcome: 'error', reason: 'processing_error', rawCode: 'no_card_in_answer' };
  const metadata = metadataOf(transaction);
  const authorization = transaction.authorization;
  const email = transaction.customer?.email;
  const token =
    metadata.keep_card !== false && authorization?.reusable && authorization.authorization_code && email
      ? toCardToken({ authorizationCode: authorization.authorization_code, email })
      : null;
  if (metadata.verification_only === true) {
    // Not given back yet: no decision on our side; asked again, the refund is found by its key, never made twice.
    const refunded = await refundVerification(client, setupRef, transaction);
    if (!refunded)
      return { outcome: 'error', reason: 'processing_error', rawCode: 'verification_not_refunded' };
    return { outcome: 'ok', token, card };
  }
  return {
    outcome: 'ok',
    token,
    card,
    charge: { chargeId: transaction.reference ?? setupRef, state: 'succeeded' },
  };
}

/**
 * Gives back the small charge that verified a card saved without a sale; once, whatever is asked again. Whether
 * Paystack took the refund.
 */
async function refundVerification(
  client: PaystackClient,
  setupRef: string,
  transaction: PaystackTransaction,
): Promise<boolean> {
  const result = await paystackRefund(client, {
    chargeId: setupRef,
    amountMinor: transaction.amount ?? 0,
    currencyCode: transaction.currency ?? '',
    idempotencyKey: `verification_${setupRef}`,
  });
  return result.outcome !== 'error' && result.outcome !== 'declined';
}

async function charge(client: PaystackClient, request: ChargeRequest): Promise<ChargeResult> {
  if (!takesCurrency(request.currencyCode)) return unsupportedCurrency(request.currencyCode);
  const card = fromCardToken(request.token);
  if (!card) return { outcome: 'declined', reason: 'card_declined', rawCode: 'not_a_paystack_token' };
  const reference = toReference(request.idempotencyKey);
  const answer = await client.call('charge', 'POST', '/transaction/charge_authorization', {
    authorization_code: card.authorizationCode,
    email: card.email,
    amount: request.amountMinor,
    currency: request.currencyCode,
    reference,
  });
  if (isUnauthorized(answer)) return refusedKey(answer);
  // The same key charged already (a retry after a lost answer): that charge is the answer, nothing new is made.
  // A server error may hide a charge made: asked the same way.
  if (isDuplicateReference(answer) || isServerError(answer)) {
    const found = await lookUpCharge(client, 'charge', reference);
    if (found.outcome !== 'not_found') return found;
    if (isServerError(answer)) throw new GatewayTimeoutError('charge');
    return { outcome: 'error', reason: 'processing_error', rawCode: 'duplicate_reference_not_found' };
  }
  if (!answer.status || !answer.data) {
    return { outcome: 'declined', reason: reasonOf(answer.message), rawCode: answer.code ?? answer.message };
  }
  return chargeResultOf(answer.data as PaystackTransaction, reference);
}

async function checkSettings(
  client: PaystackClient,
  target: GatewayTarget,
  secretKey: string,
  publicKey: string,
): Promise<SettingsCheck> {
  const wanted = target.isTestMode ? 'test' : 'live';
  for (const [name, key] of [
    ['secret', secretKey],
    ['public', publicKey],
  ] as const) {
    const mode = keyMode(key);
    if (mode !== wanted) {
      const said = mode ? `a ${mode} key` : 'not a Paystack key';
      return { outcome: 'refused', message: `the ${name} key is ${said}, on a ${wanted}-mode gateway` };
    }
  }
  const answer = await client.call('check_settings', 'GET', '/balance');
  if (isUnauthorized(answer)) {
    return { outcome: 'refused', message: `Paystack refused the secret key: ${answer.message}` };
  }
  if (!answer.status) return { outcome: 'refused', message: `Paystack answered: ${answer.message}` };
  const balances = Array.isArray(answer.data) ? (answer.data as { currency?: string }[]) : [];
  const currencies = balances.map((balance) => balance.currency).filter(Boolean);
  return {
    outcome: 'ok',
    detail: `Paystack took the ${wanted} secret key (balances in ${currencies.join(', ') || 'no currency'})`,
  };
}

export function paystackDriver(deps: PaystackDeps, options: PaystackOptions = {}): GatewayDriver {
  const { secretKey, publicKey } = paystackSettingsOf(deps.settings);
  const client = paystackClient(deps.fetch, secretKey, options.timeoutMs ?? PROVIDER_TIMEOUT_MS);
  return {
    hostedFields: (_target, request) => hostedFields(publicKey, request),
    startCardSetup: (_target, request) => startCardSetup(client, request),
    completeCardSetup: (_target, setupRef) => completeCardSetup(client, setupRef),
    charge: (_target, request) => charge(client, request),
    findCharge: (_target, key) => lookUpCharge(client, 'find_charge', toReference(key)),
    refund: (_target, request: RefundRequest): Promise<RefundResult> => paystackRefund(client, request),
    readWebhook: (_target, request) => readPaystackWebhook(secretKey, deps.wallClock, request),
    checkSettings: (target) => checkSettings(client, target, secretKey, publicKey),
  };
}

/** The gateway type `paystack` in DRIVERS (gateway.service.ts). */
export const paystackDriverModule: DriverModule = {
  checksSettings: true,
  create: (deps) => paystackDriver(deps),
  settingsProblems: paystackSettingsProblems,
};
