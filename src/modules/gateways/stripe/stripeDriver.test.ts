import Stripe from 'stripe';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StripeSimulator } from '../../../../test/providers/stripeSimulator.ts';
import type { Db } from '../../../storage/database.ts';
import type { CardSetupRequest, GatewayDriver, GatewayTarget } from '../gatewayContract.ts';
import { GatewayTimeoutError } from '../gatewayContract.ts';
import { stripeDriver } from './stripeDriver.ts';

/**
 * The Stripe driver against the in-process simulator (test/providers/stripeSimulator.ts), which checks every
 * request with Stripe's OpenAPI document and answers Stripe's own sample objects. Pure: no database, run once.
 */

// NOTE: the Stripe driver keeps no state of its own (Stripe holds it all), so it is given no database.
const NO_DATABASE = undefined as unknown as Db;
const TARGET: GatewayTarget = { id: 7, type: 'stripe', isTestMode: true };
const VISA = { number: '4242424242424242', expMonth: 12, expYear: 2034 };

let sim: StripeSimulator;
let driver: Required<GatewayDriver>;

function driverFor(simulator: StripeSimulator, secretKey = simulator.secretKey, timeoutMs = 5_000) {
  return stripeDriver(
    {
      db: NO_DATABASE,
      settings: {
        secretKey,
        publishableKey: simulator.publishableKey,
        webhookSecret: simulator.webhookSecret,
      },
      fetch: simulator.fetch,
      // Webhook signatures are checked against the simulator's clock, which stands in for the wall clock.
      wallClock: { now: () => new Date(simulator.nowSeconds * 1000) },
    },
    { timeoutMs },
  ) as Required<GatewayDriver>;
}

beforeAll(async () => {
  sim = await StripeSimulator.start();
  driver = driverFor(sim);
});

afterEach(() => {
  // Every answer the driver read fits Stripe's published response schemas.
  expect(sim.answerProblems.splice(0)).toEqual([]);
});

let keys = 0;
const nextKey = (what: string) => `${what}-${++keys}`;
const AT = '2026-11-26T10:00:00.000Z';

const setupRequest = (overrides: Partial<CardSetupRequest> = {}): CardSetupRequest => ({
  idempotencyKey: nextKey('capture'),
  currencyCode: 'USD',
  payer: { ref: `customer-${keys}`, email: 'ada@example.com', name: 'Ada Lovelace' },
  description: 'Card for Ada Lovelace',
  keepCard: true,
  ...overrides,
});

/** A card saved through the Payment Element (a SetupIntent), as the capture frame does it. */
async function savedCard(card = VISA, overrides: Partial<CardSetupRequest> = {}) {
  const start = await driver.startCardSetup(TARGET, setupRequest(overrides), AT);
  if (start.outcome !== 'ok') throw new Error(JSON.stringify(start));
  await sim.confirmInBrowser(start.confirm, card);
  const done = await driver.completeCardSetup(TARGET, start.setupRef, AT);
  return { start, done };
}

const customerOfToken = (token: string) => token.split(':')[1]!;

describe('the Payment Element in the capture frame', () => {
  it('mounts in setup mode to save a card, with no call to Stripe', () => {
    const fields = driver.hostedFields(TARGET, { currencyCode: 'USD', keepCard: true });
    expect(fields).toEqual({
      provider: 'stripe',
      scriptUrl: 'https://js.stripe.com/endive/stripe.js',
      origins: [
        'https://js.stripe.com',
        'https://*.js.stripe.com',
        'https://api.stripe.com',
        'https://hooks.stripe.com',
      ],
      mount: {
        publishableKey: sim.publishableKey,
        mode: 'setup',
        currency: 'usd',
        allowedPaymentMethodTypes: 'card',
        setupFutureUsage: 'off_session',
      },
      needsEmail: false,
      confirmsStoredCard: true,
    });
  });

  it("mounts in payment mode with the amount in Stripe's unit, kept for later only when asked", () => {
    const sale = driver.hostedFields(TARGET, { amountMinor: 1999, currencyCode: 'ZAR', keepCard: false });
    expect(sale.mount).toEqual({
      publishableKey: sim.publishableKey,
      mode: 'payment',
      amount: '1999',
      currency: 'zar',
      allowedPaymentMethodTypes: 'card',
    });
    // Yen have no minor unit, in ISO 4217 and at Stripe alike: ¥1 500 is 1500.
    expect(
      driver.hostedFields(TARGET, { amountMinor: 1500, currencyCode: 'JPY', keepCard: true }).mount,
    ).toMatchObject({ amount: '1500', currency: 'jpy', setupFutureUsage: 'off_session' });
  });
});

describe('saving a card (a SetupIntent)', () => {
  it('answers the setup, then the card and a token once Stripe says it succeeded', async () => {
    const request = setupRequest();
    const start = await driver.startCardSetup(TARGET, request, AT);
    expect(start).toMatchObject({ outcome: 'ok', setupRef: expect.stringMatching(/^seti_/) });
    if (start.outcome !== 'ok') return;
    expect(start.confirm).toEqual({ clientSecret: expect.stringContaining('_secret_'), intent: 'setup' });
    // Before the customer confirms in the browser, the setup is not done.
    expect(await driver.completeCardSetup(TARGET, start.setupRef, AT)).toEqual({ outcome: 'incomplete' });

    await sim.confirmInBrowser(start.confirm, VISA);
    const done = await driver.completeCardSetup(TARGET, start.setupRef, AT);
    expect(done).toEqual({
      outcome: 'ok',
      token: expect.stringMatching(/^stripe:cus_\w+:pm_\w+$/),
      card: { cardType: 'Visa', lastFour: '4242', expiryMonth: 12, expiryYear: 2034 },
    });
    // The payer's Stripe Customer carries our reference; asking again with the same key answers the same setup.
    const customer = sim.customers.get(customerOfToken(done.outcome === 'ok' ? done.token! : ''))!;
    expect(customer.metadata).toEqual({ billing_payer: request.payer.ref, billing_gateway: '7' });
    expect(await driver.startCardSetup(TARGET, request, AT)).toEqual(start);
  });

  it("keeps one Stripe Customer per payer: a second card joins the first card's customer", async () => {
    const payer = { ref: 'customer-twice', email: null, name: 'Grace Hopper' };
    const first = await savedCard(VISA, { payer });
    const second = await savedCard({ number: '5555555555554444', expMonth: 3, expYear: 2031 }, { payer });
    expect(first.done.outcome === 'ok' && second.done.outcome === 'ok').toBe(true);
    if (first.done.outcome !== 'ok' || second.done.outcome !== 'ok') return;
    expect(customerOfToken(second.done.token!)).toBe(customerOfToken(first.done.token!));
    expect(second.done.card).toEqual({
      cardType: 'Mastercard',
      lastFour: '4444',
      expiryMonth: 3,
      expiryYear: 2031,
    });
  });

  it("answers the issuer's decline of the card being saved", async () => {
    const { done } = await savedCard({ ...VISA, number: '4000000000000002' });
    expect(done).toEqual({ outcome: 'declined', reason: 'card_declined', rawCode: 'generic_decline' });
    const expired = await savedCard({ ...VISA, number: '4000000000000069' });
    expect(expired.done).toEqual({ outcome: 'declined', reason: 'expired_card', rawCode: 'expired_card' });
  });

  it('waits while the customer authenticates (3-D Secure), then saves the card for renewals', async () => {
    const card = { ...VISA, number: '4000002500003155' };
    const start = await driver.startCardSetup(TARGET, setupRequest(), AT);
    if (start.outcome !== 'ok') throw new Error('no setup');
    await sim.confirmInBrowser(start.confirm, card);
    expect(await driver.completeCardSetup(TARGET, start.setupRef, AT)).toEqual({ outcome: 'incomplete' });
    sim.authenticate(start.setupRef);
    const done = await driver.completeCardSetup(TARGET, start.setupRef, AT);
    expect(done).toMatchObject({ outcome: 'ok', card: { lastFour: '3155' } });
    // Set up for later charges, this card is charged off session without asking the customer again.
    const renewal = await driver.charge(TARGET, renewalOf(done.outcome === 'ok' ? done.token! : ''), AT);
    expect(renewal).toEqual({ outcome: 'succeeded', chargeId: expect.stringMatching(/^pi_/) });
  });
});

describe('a sale in the Payment Element (a PaymentIntent)', () => {
  it('charges the amount and keeps the card when asked', async () => {
    const start = await driver.startCardSetup(
      TARGET,
      setupRequest({ amountMinor: 4999, currencyCode: 'EUR' }),
      AT,
    );
    if (start.outcome !== 'ok') throw new Error('no setup');
    expect(start.setupRef).toMatch(/^pi_/);
    expect(start.confirm.intent).toBe('payment');
    await sim.confirmInBrowser(start.confirm, VISA);
    const done = await driver.completeCardSetup(TARGET, start.setupRef, AT);
    expect(done).toEqual({
      outcome: 'ok',
      token: expect.stringMatching(/^stripe:cus_/),
      card: { cardType: 'Visa', lastFour: '4242', expiryMonth: 12, expiryYear: 2034 },
      charge: { chargeId: start.setupRef, state: 'succeeded' },
    });
    expect(sim.intents.get(start.setupRef)).toMatchObject({
      amount: 4999,
      currency: 'eur',
      setupFutureUsage: 'off_session',
    });
  });

  it('charges once and keeps no token when the card is not kept', async () => {
    const start = await driver.startCardSetup(
      TARGET,
      setupRequest({ amountMinor: 1000, keepCard: false }),
      AT,
    );
    if (start.outcome !== 'ok') throw new Error('no setup');
    await sim.confirmInBrowser(start.confirm, { number: '378282246310005', expMonth: 1, expYear: 2030 });
    expect(await driver.completeCardSetup(TARGET, start.setupRef, AT)).toMatchObject({
      outcome: 'ok',
      token: null,
      card: { cardType: 'American Express', lastFour: '0005' },
      charge: { chargeId: start.setupRef, state: 'succeeded' },
    });
  });
});

const renewalOf = (token: string, idempotencyKey = nextKey('attempt')) => ({
  token,
  amountMinor: 2500,
  currencyCode: 'USD',
  idempotencyKey,
  description: 'Invoice 1001',
});

/** A token for one of Stripe's test PaymentMethods, saved to a real customer of the simulator. */
async function tokenOfTestCard(paymentMethod: string) {
  const { done } = await savedCard();
  if (done.outcome !== 'ok') throw new Error('no card');
  return `stripe:${customerOfToken(done.token!)}:${paymentMethod}`;
}

describe('renewals off session', () => {
  it('charges a saved card, once per idempotency key', async () => {
    const { done } = await savedCard();
    const token = done.outcome === 'ok' ? done.token! : '';
    const request = renewalOf(token);
    const first = await driver.charge(TARGET, request, AT);
    expect(first).toEqual({ outcome: 'succeeded', chargeId: expect.stringMatching(/^pi_/) });
    expect(await driver.charge(TARGET, request, AT)).toEqual(first);
    const made = [...sim.intents.values()].filter((i) => i.metadata.billing_key === request.idempotencyKey);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ amount: 2500, currency: 'usd', description: 'Invoice 1001' });
  });

  it('answers a soft decline (insufficient funds) and a hard one (expired, lost)', async () => {
    const cases = [
      ['pm_card_chargeDeclinedInsufficientFunds', 'insufficient_funds', 'insufficient_funds'],
      ['pm_card_chargeCustomerFail', 'card_declined', 'generic_decline'],
      ['pm_card_chargeDeclinedExpiredCard', 'expired_card', 'expired_card'],
      ['pm_card_chargeDeclinedLostCard', 'lost_card', 'lost_card'],
    ] as const;
    for (const [paymentMethod, reason, rawCode] of cases) {
      const answer = await driver.charge(TARGET, renewalOf(await tokenOfTestCard(paymentMethod)), AT);
      expect(answer, paymentMethod).toEqual({ outcome: 'declined', reason, rawCode });
    }
  });

  it('answers requires_action with the client secret when the issuer wants the customer (SCA)', async () => {
    const token = await tokenOfTestCard('pm_card_authenticationRequired');
    const answer = await driver.charge(TARGET, renewalOf(token), AT);
    expect(answer).toEqual({
      outcome: 'requires_action',
      chargeId: expect.stringMatching(/^pi_/),
      action: { kind: 'client_secret', clientSecret: expect.stringContaining('_secret_') },
      rawCode: 'authentication_required',
    });
  });

  it('answers no decision (a technical error) when Stripe fails or limits the rate', async () => {
    const { done } = await savedCard();
    const token = done.outcome === 'ok' ? done.token! : '';
    const message = 'Something went wrong on our end.';
    sim.failNext('POST /v1/payment_intents', 500, { type: 'api_error', message });
    expect(await driver.charge(TARGET, renewalOf(token), AT)).toEqual({
      outcome: 'error',
      reason: 'processing_error',
      rawCode: 'api_error',
    });
    const tooMany = 'Too many requests hit the API too quickly.';
    sim.failNext('POST /v1/payment_intents', 429, {
      type: 'invalid_request_error',
      code: 'rate_limit',
      message: tooMany,
    });
    expect(await driver.charge(TARGET, renewalOf(token), AT)).toEqual({
      outcome: 'error',
      reason: 'processing_error',
      rawCode: 'rate_limit',
    });
  });

  it('declines a token that is not a Stripe card without calling Stripe', async () => {
    expect(await driver.charge(TARGET, renewalOf('tok_test_123'), AT)).toEqual({
      outcome: 'declined',
      reason: 'invalid_account',
      rawCode: 'no_such_token',
    });
  });

  it('throws GatewayTimeoutError when the answer is lost, and finds the charge by our key after 24 hours', async () => {
    const { done } = await savedCard();
    const request = renewalOf(done.outcome === 'ok' ? done.token! : '');
    const impatient = driverFor(sim, sim.secretKey, 200);
    sim.loseNextAnswer('POST /v1/payment_intents');
    await expect(impatient.charge(TARGET, request, AT)).rejects.toBeInstanceOf(GatewayTimeoutError);
    // Stripe forgets idempotency keys after 24 hours: asking with the key alone would charge again.
    sim.advanceHours(25);
    const found = await driver.findCharge(TARGET, request.idempotencyKey, AT);
    expect(found).toEqual({ outcome: 'succeeded', chargeId: expect.stringMatching(/^pi_/) });
    const made = [...sim.intents.values()].filter((i) => i.metadata.billing_key === request.idempotencyKey);
    expect(made.map((i) => i.id)).toEqual([found.outcome === 'succeeded' ? found.chargeId : '']);
    expect(await driver.findCharge(TARGET, 'never-used-key', AT)).toEqual({ outcome: 'not_found' });
  });

  it('finds a declined charge by our key as its decline', async () => {
    const request = renewalOf(await tokenOfTestCard('pm_card_chargeDeclinedInsufficientFunds'));
    await driver.charge(TARGET, request, AT);
    expect(await driver.findCharge(TARGET, request.idempotencyKey, AT)).toEqual({
      outcome: 'declined',
      reason: 'insufficient_funds',
      rawCode: 'insufficient_funds',
    });
  });
});

/** A succeeded renewal of a card, its charge id. */
async function chargedCard(paymentMethod = 'pm_card_visa') {
  const answer = await driver.charge(TARGET, renewalOf(await tokenOfTestCard(paymentMethod)), AT);
  if (answer.outcome !== 'succeeded') throw new Error(JSON.stringify(answer));
  return answer.chargeId;
}

const webhookOf = async (type: string, options?: { secret?: string; signedAt?: number }) =>
  driver.readWebhook(TARGET, await sim.delivery(type, options));

const today = () => new Date(sim.nowSeconds * 1000).toISOString().slice(0, 10);

describe('a stored card confirmed on session (the pay page\'s "Confirm payment")', () => {
  const onSession = (token: string) =>
    setupRequest({ amountMinor: 3000, keepCard: false, storedToken: token, description: 'Invoice 1002' });

  it('leaves the intent to Stripe.js when the bank asks, then answers the charge once it is passed', async () => {
    const token = await tokenOfTestCard('pm_card_authenticationRequired');
    const request = onSession(token);
    const start = await driver.startCardSetup(TARGET, request, AT);
    expect(start).toEqual({
      outcome: 'ok',
      setupRef: expect.stringMatching(/^pi_/),
      confirm: { clientSecret: expect.stringContaining('_secret_'), intent: 'payment', nextAction: 'handle' },
    });
    if (start.outcome !== 'ok') return;
    // On session, for the token's own Stripe Customer and card; the same key answers the same intent.
    expect(sim.intents.get(start.setupRef)).toMatchObject({
      status: 'requires_action',
      amount: 3000,
      customer: customerOfToken(token),
      setupFutureUsage: null,
    });
    expect(await driver.startCardSetup(TARGET, request, AT)).toEqual(start);
    expect(await driver.completeCardSetup(TARGET, start.setupRef, AT)).toEqual({ outcome: 'incomplete' });
    sim.authenticate(start.setupRef);
    expect(await driver.completeCardSetup(TARGET, start.setupRef, AT)).toEqual({
      outcome: 'ok',
      token: null,
      card: { cardType: 'Visa', lastFour: '3184', expiryMonth: 12, expiryYear: 2034 },
      charge: { chargeId: start.setupRef, state: 'succeeded' },
    });
  });

  it('answers a failed authentication as a decline, and a charge the bank lets through at once', async () => {
    const start = await driver.startCardSetup(
      TARGET,
      onSession(await tokenOfTestCard('pm_card_authenticationRequired')),
      AT,
    );
    if (start.outcome !== 'ok') throw new Error(JSON.stringify(start));
    sim.failAuthentication(start.setupRef);
    expect(await driver.completeCardSetup(TARGET, start.setupRef, AT)).toEqual({
      outcome: 'declined',
      reason: 'card_declined',
      rawCode: 'payment_intent_authentication_failure',
    });

    const { done } = await savedCard();
    const through = await driver.startCardSetup(
      TARGET,
      onSession(done.outcome === 'ok' ? done.token! : ''),
      AT,
    );
    expect(through).toEqual({ outcome: 'ok', setupRef: expect.stringMatching(/^pi_/), confirm: {} });
    if (through.outcome !== 'ok') return;
    expect(await driver.completeCardSetup(TARGET, through.setupRef, AT)).toMatchObject({
      outcome: 'ok',
      charge: { chargeId: through.setupRef, state: 'succeeded' },
    });
  });

  it("answers the issuer's decline, and declines a token that is not a Stripe card without calling Stripe", async () => {
    const insufficient = await tokenOfTestCard('pm_card_chargeDeclinedInsufficientFunds');
    expect(await driver.startCardSetup(TARGET, onSession(insufficient), AT)).toEqual({
      outcome: 'declined',
      reason: 'insufficient_funds',
      rawCode: 'insufficient_funds',
    });
    const intents = sim.intents.size;
    expect(await driver.startCardSetup(TARGET, onSession('test:tok_1'), AT)).toEqual({
      outcome: 'declined',
      reason: 'invalid_account',
      rawCode: 'no_such_token',
    });
    expect(sim.intents.size).toBe(intents);
    expect(sim.refused).toEqual([]);
  });
});

describe('refunds', () => {
  it('answers a pending refund, then its outcome from a signed refund.updated webhook', async () => {
    for (const outcome of ['succeeded', 'failed'] as const) {
      const chargeId = await chargedCard();
      sim.nextRefundStatus = 'pending';
      const request = { chargeId, amountMinor: 1000, currencyCode: 'USD', idempotencyKey: nextKey('refund') };
      const refund = await driver.refund(TARGET, request, AT);
      expect(refund).toEqual({ outcome: 'pending', refundId: expect.stringMatching(/^re_/) });
      expect(await driver.refund(TARGET, request, AT)).toEqual(refund);
      const refundId = refund.outcome === 'pending' ? refund.refundId : '';
      sim.settleRefund(refundId, outcome);
      const kind = outcome === 'succeeded' ? 'refund_settled' : 'refund_failed';
      const code = outcome === 'succeeded' ? 'succeeded' : 'expired_or_canceled_card';
      const told = { outcome: 'verified', events: [{ chargeId, refundId, kind, code, reportedOn: today() }] };
      expect(await webhookOf('refund.updated')).toEqual(told);
      expect(await webhookOf('charge.refund.updated')).toEqual(told);
    }
    sim.nextRefundStatus = 'succeeded';
  });

  it('refunds at once when Stripe says so, and declines more than is left', async () => {
    const chargeId = await chargedCard();
    const refund = (amountMinor: number) =>
      driver.refund(
        TARGET,
        { chargeId, amountMinor, currencyCode: 'USD', idempotencyKey: nextKey('refund') },
        AT,
      );
    expect(await refund(2000)).toEqual({ outcome: 'succeeded', refundId: expect.stringMatching(/^re_/) });
    expect(await refund(501)).toEqual({
      outcome: 'declined',
      reason: 'card_declined',
      rawCode: 'amount_too_large',
    });
  });
});

describe("Stripe's webhooks", () => {
  it('tells of a dispute, then of its outcome, won or lost', async () => {
    for (const outcome of ['won', 'lost'] as const) {
      const chargeId = await chargedCard('pm_card_createDispute');
      const reportedOn = today();
      expect(await webhookOf('charge.dispute.created')).toEqual({
        outcome: 'verified',
        events: [{ chargeId, kind: 'dispute', code: 'fraudulent', reportedOn, amountMinor: 2500 }],
      });
      sim.closeDispute(chargeId, outcome);
      expect(await webhookOf('charge.dispute.closed')).toEqual({
        outcome: 'verified',
        events: [
          {
            chargeId,
            kind: outcome === 'won' ? 'dispute_won' : 'dispute_lost',
            code: 'fraudulent',
            reportedOn,
            amountMinor: 2500,
          },
        ],
      });
    }
  });

  it("tells of a charge settled or failed, with the failure's reason", async () => {
    const chargeId = await chargedCard();
    expect(await webhookOf('payment_intent.succeeded')).toEqual({
      outcome: 'verified',
      events: [{ chargeId, kind: 'charge_settled', code: 'succeeded', reportedOn: today() }],
    });
    await driver.charge(
      TARGET,
      renewalOf(await tokenOfTestCard('pm_card_chargeDeclinedInsufficientFunds')),
      AT,
    );
    const failed = await webhookOf('payment_intent.payment_failed');
    expect(failed).toMatchObject({
      outcome: 'verified',
      events: [{ kind: 'charge_failed', code: 'insufficient_funds', reason: 'insufficient_funds' }],
    });
  });

  it('refuses a request signed with another secret, a stale one, and one with no signature', async () => {
    await chargedCard();
    const wrong = await webhookOf('payment_intent.succeeded', { secret: 'whsec_someoneelse' });
    expect(wrong).toMatchObject({ outcome: 'unverified', message: expect.stringMatching(/signature/i) });
    const stale = await webhookOf('payment_intent.succeeded', { signedAt: sim.nowSeconds - 600 });
    expect(stale).toMatchObject({ outcome: 'unverified', message: expect.stringMatching(/tolerance/i) });
    const delivery = await sim.delivery('payment_intent.succeeded');
    expect(await driver.readWebhook(TARGET, { headers: {}, rawBody: delivery.rawBody })).toEqual({
      outcome: 'unverified',
      message: 'the request has no Stripe-Signature header',
    });
    // A byte changed in the body breaks the signature.
    const tampered = Buffer.from(delivery.rawBody.toString().replace('"succeeded"', '"Succeeded"'));
    expect(await driver.readWebhook(TARGET, { ...delivery, rawBody: tampered })).toMatchObject({
      outcome: 'unverified',
    });
  });

  it('refuses a signature dated more than the tolerance in the future, and takes one a little ahead', async () => {
    await chargedCard();
    const day = 24 * 60 * 60;
    for (const ahead of [day, 10 * 365 * day, 400]) {
      const future = await webhookOf('payment_intent.succeeded', { signedAt: sim.nowSeconds + ahead });
      expect(future).toMatchObject({ outcome: 'unverified', message: expect.stringMatching(/future/i) });
    }
    // A sender's clock a little ahead of ours, within the tolerance, is not a replay.
    const ahead = await webhookOf('payment_intent.succeeded', { signedAt: sim.nowSeconds + 60 });
    expect(ahead).toMatchObject({ outcome: 'verified' });
  });
});

describe('the settings check', () => {
  it('says the key works, or in words why not', async () => {
    expect(await driver.checkSettings(TARGET)).toEqual({
      outcome: 'ok',
      detail: 'Stripe accepted the test-mode secret key and its PaymentIntents permission',
    });
    const wrongKey = driverFor(sim, 'sk_test_revoked0000000000');
    expect(await wrongKey.checkSettings(TARGET)).toEqual({
      outcome: 'refused',
      message: expect.stringMatching(/^Stripe refused the secret key: Invalid API Key provided: sk_test_/),
    });
  });
});

describe("the simulator's check against Stripe's OpenAPI document", () => {
  it('refuses a misspelled parameter and one Stripe removed, as Stripe would', async () => {
    const stripe = new Stripe(sim.secretKey, {
      httpClient: Stripe.createFetchHttpClient(sim.fetch),
      maxNetworkRetries: 0,
    });
    const before = sim.refused.length;
    const misspelled = {
      amount: 100,
      currency: 'usd',
      metdata: { billing_key: 'k' },
    } as unknown as Stripe.PaymentIntentCreateParams;
    await expect(stripe.paymentIntents.create(misspelled)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
    });
    const removed = {
      amount: 100,
      currency: 'usd',
      payment_method_types: ['card'],
    } as unknown as Stripe.PaymentIntentCreateParams;
    await expect(stripe.paymentIntents.create(removed)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
    });
    const refused = sim.refused.slice(before);
    expect(refused.map((r) => r.operation)).toEqual(['POST /v1/payment_intents', 'POST /v1/payment_intents']);
    expect(refused[0]!.problems.join(' ')).toMatch(/metdata/);
    expect(refused[1]!.problems.join(' ')).toMatch(/payment_method_types/);
    sim.refused.splice(before);
  });
});

afterEach(() => {
  // Nothing the driver sent was refused by the document.
  expect(sim.refused.splice(0)).toEqual([]);
});
