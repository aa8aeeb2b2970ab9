import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CardBehaviour } from './stripeSimulatorCards.ts';

/**
 * The simulator's records and how they are shown: every object it answers is Stripe's own current sample of that
 * resource (test/fixtures/providers/stripe/fixtures3.json, listed in test/fixtures/README.md) with the simulator's values put in, so the
 * driver reads what Stripe sends, fields it ignores included.
 */

export const FIXTURES_PATH = fileURLToPath(
  new URL('../fixtures/providers/stripe/fixtures3.json', import.meta.url),
);
const FIXTURES = JSON.parse(readFileSync(FIXTURES_PATH, 'utf8')) as {
  resources: Record<string, Record<string, unknown>>;
};

/** A deep copy of Stripe's sample object of a resource, with `values` put in. */
export function sampleOf(resource: string, values: Record<string, unknown>): Record<string, unknown> {
  const sample = FIXTURES.resources[resource];
  if (!sample) throw new Error(`fixtures3.json has no sample ${resource}`);
  return { ...structuredClone(sample), ...values };
}

/** An intent's last error: a card error, or a failed authentication (`invalid_request_error`). */
export interface CardError {
  type: 'card_error' | 'invalid_request_error';
  code: string;
  decline_code?: string;
  message: string;
}

export interface PaymentMethodRecord {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  behaviour: CardBehaviour;
  customer: string | null;
  /** Set up for later charges off session (a succeeded SetupIntent, or a sale with setup_future_usage). */
  setUp: boolean;
  created: number;
}

export interface IntentRecord {
  kind: 'setup' | 'payment';
  id: string;
  clientSecret: string;
  status: string;
  customer: string | null;
  paymentMethod: string | null;
  amount: number;
  currency: string;
  description: string | null;
  metadata: Record<string, string>;
  setupFutureUsage: string | null;
  lastError: CardError | null;
  latestCharge: string | null;
  created: number;
}

export interface RefundRecord {
  id: string;
  paymentIntent: string;
  charge: string;
  amount: number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  failureReason: string | null;
  metadata: Record<string, string>;
  created: number;
}

export interface DisputeRecord {
  id: string;
  paymentIntent: string;
  charge: string;
  amount: number;
  currency: string;
  status: string;
  reason: string;
  created: number;
}

export interface CustomerRecord {
  id: string;
  name: string | null;
  email: string | null;
  metadata: Record<string, string>;
  created: number;
}

export function paymentMethodJson(pm: PaymentMethodRecord): Record<string, unknown> {
  const sample = sampleOf('payment_method', {});
  const card = structuredClone(sample.card) as Record<string, unknown>;
  Object.assign(card, {
    brand: pm.brand,
    display_brand: pm.brand,
    last4: pm.last4,
    exp_month: pm.expMonth,
    exp_year: pm.expYear,
    networks: { available: [pm.brand], preferred: null },
    wallet: null,
  });
  return sampleOf('payment_method', {
    id: pm.id,
    card,
    customer: pm.customer,
    created: pm.created,
    metadata: {},
    billing_details: {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      email: null,
      name: null,
      phone: null,
      tax_id: null,
    },
  });
}

const errorJson = (error: CardError | null, pm: PaymentMethodRecord | undefined) =>
  error ? { ...error, ...(pm ? { payment_method: paymentMethodJson(pm) } : {}) } : null;

/** A SetupIntent or PaymentIntent as Stripe shows it; `expand` names the payment method when asked. */
export function intentJson(
  intent: IntentRecord,
  pm: PaymentMethodRecord | undefined,
  expandPaymentMethod: boolean,
): Record<string, unknown> {
  const common = {
    id: intent.id,
    client_secret: intent.clientSecret,
    status: intent.status,
    customer: intent.customer,
    description: intent.description,
    metadata: intent.metadata,
    created: intent.created,
    livemode: false,
    payment_method: pm ? (expandPaymentMethod ? paymentMethodJson(pm) : pm.id) : null,
    payment_method_types: ['card'],
    automatic_payment_methods: null,
    payment_method_configuration_details: null,
    next_action: intent.status === 'requires_action' ? { type: 'use_stripe_sdk', use_stripe_sdk: {} } : null,
  };
  if (intent.kind === 'setup') {
    return sampleOf('setup_intent', {
      ...common,
      usage: 'off_session',
      last_setup_error: errorJson(intent.lastError, pm),
    });
  }
  const succeeded = intent.status === 'succeeded';
  return sampleOf('payment_intent', {
    ...common,
    amount: intent.amount,
    amount_received: succeeded ? intent.amount : 0,
    currency: intent.currency,
    canceled_at: null,
    last_payment_error: errorJson(intent.lastError, pm),
    latest_charge: intent.latestCharge,
    setup_future_usage: intent.setupFutureUsage,
    processing: null,
    transfer_data: null,
    managed_payments: null,
  });
}

export function refundJson(refund: RefundRecord): Record<string, unknown> {
  return sampleOf('refund', {
    id: refund.id,
    amount: refund.amount,
    charge: refund.charge,
    currency: refund.currency,
    payment_intent: refund.paymentIntent,
    status: refund.status,
    metadata: refund.metadata,
    created: refund.created,
    ...(refund.failureReason ? { failure_reason: refund.failureReason } : {}),
  });
}

export function disputeJson(dispute: DisputeRecord): Record<string, unknown> {
  return sampleOf('dispute', {
    id: dispute.id,
    amount: dispute.amount,
    charge: dispute.charge,
    currency: dispute.currency,
    payment_intent: dispute.paymentIntent,
    status: dispute.status,
    reason: dispute.reason,
    created: dispute.created,
  });
}

export function customerJson(customer: CustomerRecord): Record<string, unknown> {
  return sampleOf('customer', {
    id: customer.id,
    name: customer.name,
    email: customer.email,
    metadata: customer.metadata,
    created: customer.created,
    discount: null,
  });
}

/** A list or search answer, as Stripe wraps them. */
export function searchJson(url: string, data: unknown[]): Record<string, unknown> {
  return { object: 'search_result', data, has_more: false, next_page: null, url };
}

export function listJson(url: string, data: unknown[]): Record<string, unknown> {
  return { object: 'list', data, has_more: false, url };
}

/**
 * A form body in Stripe's bracket notation (`metadata[billing_key]=…`, `expand[0]=…`) as nested values; indices
 * make arrays. Values stay text, as they arrive.
 */
export function parseForm(text: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const path = name.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = result;
    path.forEach((part, i) => {
      if (i === path.length - 1) {
        node[part] = value;
        return;
      }
      node[part] ??= /^\d+$/.test(path[i + 1]!) ? [] : {};
      node = node[part] as Record<string, unknown>;
    });
  }
  return result;
}
