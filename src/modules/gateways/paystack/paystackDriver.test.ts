import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../clock.ts';
import {
  PAYSTACK_TEST_CARDS,
  PAYSTACK_TEST_OTP,
  PaystackSimulator,
} from '../../../../test/providers/paystackSimulator.ts';
import type { CardSetupRequest, GatewayDriver, GatewayTarget } from '../gatewayContract.ts';
import { GatewayTimeoutError } from '../gatewayContract.ts';
import { paystackDriver } from './paystackDriver.ts';
import { toReference } from './paystackReference.ts';

// The Paystack driver against the in-process Paystack of test/providers/paystackSimulator.ts, which checks every
// request against Paystack's published OpenAPI document and answers from its published samples. No database: the
// driver keeps no state of its own, so these run once (project unit).

const SECRET = 'sk_test_0123456789abcdef';
const PUBLIC = 'pk_test_0123456789abcdef';
const clock = fixedClock('2026-11-26T10:00:00.000Z');
const target: GatewayTarget = { id: 7, type: 'paystack', isTestMode: true };
const payer = { ref: '42', email: 'payer@example.com', name: 'Thandi Nkosi' };
const card = (number: string) => ({ number, expiryMonth: 12, expiryYear: 2030 });

let sim: PaystackSimulator;
let driver: GatewayDriver;
let keyCount = 0;
const newKey = (what: string) => `${what}_${++keyCount}_t`;

beforeAll(async () => {
  sim = await PaystackSimulator.start(SECRET, clock);
  driver = paystackDriver({
    settings: { secretKey: SECRET, publicKey: PUBLIC },
    fetch: sim.fetch,
    wallClock: clock,
  });
});

afterEach(() => {
  const problems = sim.problems.splice(0);
  expect(problems).toEqual([]);
});

const setupRequest = (extra: Partial<CardSetupRequest> = {}): CardSetupRequest => ({
  idempotencyKey: newKey('capture'),
  amountMinor: 25_000,
  currencyCode: 'ZAR',
  payer,
  description: 'Invoice 1001',
  keepCard: true,
  ...extra,
});

/** A card saved through a sale, as the capture frame does it: start, pay in the popup, complete. */
async function savedCard(number: string = PAYSTACK_TEST_CARDS.success.number) {
  const start = await driver.startCardSetup!(target, setupRequest(), clock.now().toISOString());
  if (start.outcome !== 'ok') throw new Error(`setup refused: ${JSON.stringify(start)}`);
  sim.payWithCard(start.confirm.accessCode!, card(number));
  if (number === PAYSTACK_TEST_CARDS.pinAndOtp.number)
    sim.submitOtp(start.confirm.accessCode!, PAYSTACK_TEST_OTP);
  const done = await driver.completeCardSetup!(target, start.setupRef, clock.now().toISOString());
  if (done.outcome !== 'ok' || !done.token) throw new Error(`setup not completed: ${JSON.stringify(done)}`);
  return { token: done.token, authorizationCode: sim.authorizationOf(start.setupRef) };
}

const charge = (token: string, idempotencyKey = newKey('charge'), amountMinor = 19_900) =>
  driver.charge!(
    target,
    { token, amountMinor, currencyCode: 'ZAR', idempotencyKey, description: 'Invoice 1002' },
    '',
  );

describe('hosted fields', () => {
  it("shows Paystack's Inline JS with the public key, without a call", () => {
    const before = sim.requests.length;
    expect(driver.hostedFields!(target, { currencyCode: 'ZAR', keepCard: true })).toEqual({
      provider: 'paystack',
      scriptUrl: 'https://js.paystack.co/v2/inline.js',
      origins: ['https://js.paystack.co', 'https://checkout.paystack.com', 'https://api.paystack.co'],
      mount: { publicKey: PUBLIC },
      needsEmail: true,
    });
    expect(sim.requests.length).toBe(before);
  });
});

describe('card setup', () => {
  it('starts a sale with the reference made from our key, and completes it with the card and its charge', async () => {
    const request = setupRequest();
    const start = await driver.startCardSetup!(target, request, '');
    const reference = toReference(request.idempotencyKey);
    expect(start).toEqual({
      outcome: 'ok',
      setupRef: reference,
      confirm: { accessCode: expect.any(String) },
    });
    expect(sim.requests.at(-1)?.body).toEqual({
      email: 'payer@example.com',
      amount: 25_000,
      currency: 'ZAR',
      reference,
      channels: ['card'],
      metadata: { payer_ref: '42', keep_card: true, verification_only: false, description: 'Invoice 1001' },
    });
    if (start.outcome !== 'ok') return;
    expect(await driver.completeCardSetup!(target, start.setupRef, '')).toEqual({ outcome: 'incomplete' });
    sim.payWithCard(start.confirm.accessCode!, card(PAYSTACK_TEST_CARDS.success.number));
    const done = await driver.completeCardSetup!(target, start.setupRef, '');
    expect(done).toEqual({
      outcome: 'ok',
      token: expect.stringMatching(/^paystack1\./),
      card: { cardType: 'Visa', lastFour: '4081', expiryMonth: 12, expiryYear: 2030 },
      charge: { chargeId: reference, state: 'succeeded' },
    });
    expect(JSON.stringify(sim.requests)).not.toContain(PAYSTACK_TEST_CARDS.success.number);
  });

  it('waits while the card asks for an OTP, then saves it', async () => {
    const start = await driver.startCardSetup!(target, setupRequest(), '');
    if (start.outcome !== 'ok') throw new Error('not started');
    expect(sim.payWithCard(start.confirm.accessCode!, card(PAYSTACK_TEST_CARDS.pinAndOtp.number))).toBe(
      'send_otp',
    );
    expect(await driver.completeCardSetup!(target, start.setupRef, '')).toEqual({ outcome: 'incomplete' });
    sim.submitOtp(start.confirm.accessCode!, PAYSTACK_TEST_OTP);
    expect(await driver.completeCardSetup!(target, start.setupRef, '')).toMatchObject({
      outcome: 'ok',
      card: { cardType: 'Verve', lastFour: '6666' },
    });
  });

  it("answers the issuer's refusal of Paystack's declined test card", async () => {
    const start = await driver.startCardSetup!(target, setupRequest(), '');
    if (start.outcome !== 'ok') throw new Error('not started');
    sim.payWithCard(start.confirm.accessCode!, card(PAYSTACK_TEST_CARDS.declined.number));
    expect(await driver.completeCardSetup!(target, start.setupRef, '')).toEqual({
      outcome: 'declined',
      reason: 'card_declined',
      rawCode: 'Declined',
    });
  });

  it("saves a card without a sale with Paystack's smallest amount, refunded once", async () => {
    const request = setupRequest({ amountMinor: undefined });
    const start = await driver.startCardSetup!(target, request, '');
    if (start.outcome !== 'ok') throw new Error('not started');
    // Paystack's smallest ZAR amount is R1.00: 100 cents.
    expect(sim.requests.at(-1)?.body).toMatchObject({ amount: 100, currency: 'ZAR' });
    sim.payWithCard(start.confirm.accessCode!, card(PAYSTACK_TEST_CARDS.success.number));
    const done = await driver.completeCardSetup!(target, start.setupRef, '');
    expect(done).toEqual({ outcome: 'ok', token: expect.any(String), card: expect.any(Object) });
    await driver.completeCardSetup!(target, start.setupRef, '');
    expect(sim.refundsOf(start.setupRef)).toEqual([
      { id: expect.any(Number), amount: 100, status: 'pending' },
    ]);
  });

  it('refuses a currency Paystack does not take, without a call', async () => {
    const before = sim.requests.length;
    expect(await driver.startCardSetup!(target, setupRequest({ currencyCode: 'EUR' }), '')).toEqual({
      outcome: 'error',
      reason: 'processing_error',
      rawCode: 'unsupported_currency_EUR',
    });
    expect(sim.requests.length).toBe(before);
  });
});

describe('a setup asked again', () => {
  it('answers a setup started again with the same key as an error, starting nothing new', async () => {
    const request = setupRequest();
    expect(await driver.startCardSetup!(target, request, '')).toMatchObject({ outcome: 'ok' });
    expect(await driver.startCardSetup!(target, request, '')).toEqual({
      outcome: 'error',
      reason: 'processing_error',
      rawCode: 'duplicate_reference',
    });
  });
});

describe('renewals with charge_authorization', () => {
  it('charges a saved card, and the same key again answers the same charge without a second', async () => {
    const { token } = await savedCard();
    const key = newKey('renewal');
    const first = await charge(token, key);
    expect(first).toEqual({ outcome: 'succeeded', chargeId: toReference(key) });
    expect(sim.requests.at(-1)?.body).toEqual({
      authorization_code: expect.stringMatching(/^AUTH_/),
      email: 'payer@example.com',
      amount: 19_900,
      currency: 'ZAR',
      reference: toReference(key),
    });
    // Paystack answers the reused reference with duplicate_reference; the driver looks the charge up.
    expect(await charge(token, key)).toEqual(first);
    expect(sim.chargesMade().filter((made) => made.reference === toReference(key))).toHaveLength(1);
  });
});

describe('renewals declined, waiting or unanswered', () => {
  it.each([
    ['Insufficient Funds', 'insufficient_funds'],
    ['Declined', 'card_declined'],
    ['Expired Card', 'expired_card'],
    ['Lost Card, Pick-Up', 'lost_card'],
    ['Stolen Card, Pick-Up', 'stolen_card'],
  ] as const)('answers "%s" inside a 200 as declined with %s', async (gatewayResponse, reason) => {
    const { token, authorizationCode } = await savedCard();
    sim.declineChargesOf(authorizationCode, gatewayResponse);
    expect(await charge(token)).toEqual({ outcome: 'declined', reason, rawCode: gatewayResponse });
  });

  it('answers a paused charge with the page where the customer authorises it', async () => {
    const { token } = await savedCard(PAYSTACK_TEST_CARDS.pinAndOtp.number);
    const key = newKey('renewal');
    expect(await charge(token, key)).toEqual({
      outcome: 'requires_action',
      chargeId: toReference(key),
      action: { kind: 'redirect', url: expect.stringMatching(/^https:\/\/checkout\.paystack\.com\//) },
      rawCode: 'paused',
    });
  });

  it('answers a pending charge, settled later by a signed charge.success', async () => {
    const { token, authorizationCode } = await savedCard();
    sim.pendChargesOf(authorizationCode);
    const key = newKey('renewal');
    expect(await charge(token, key)).toEqual({ outcome: 'pending', chargeId: toReference(key) });
    expect(await driver.readWebhook!(target, sim.settleCharge(toReference(key)))).toEqual({
      outcome: 'verified',
      events: [
        { chargeId: toReference(key), kind: 'charge_settled', code: 'success', reportedOn: '2026-11-26' },
      ],
    });
  });

  it('throws GatewayTimeoutError on a lost answer; asking by our key then finds the one charge made', async () => {
    const { token } = await savedCard();
    const key = newKey('renewal');
    const impatient = paystackDriver(
      { settings: { secretKey: SECRET, publicKey: PUBLIC }, fetch: sim.fetch, wallClock: clock },
      { timeoutMs: 200 },
    );
    sim.loseNextAnswer(toReference(key));
    await expect(
      impatient.charge!(
        target,
        { token, amountMinor: 5_000, currencyCode: 'ZAR', idempotencyKey: key, description: '' },
        '',
      ),
    ).rejects.toBeInstanceOf(GatewayTimeoutError);
    expect(await driver.findCharge!(target, key, '')).toEqual({
      outcome: 'succeeded',
      chargeId: toReference(key),
    });
    expect(await charge(token, key, 5_000)).toEqual({ outcome: 'succeeded', chargeId: toReference(key) });
    expect(sim.chargesMade().filter((made) => made.reference === toReference(key))).toEqual([
      { reference: toReference(key), status: 'success', amount: 5_000 },
    ]);
  });

  it('finds no charge for a key never used', async () => {
    expect(await driver.findCharge!(target, newKey('never'), '')).toEqual({ outcome: 'not_found' });
  });

  it('declines a token that is not a Paystack card, without a call', async () => {
    const before = sim.requests.length;
    expect(await charge('tok_test_4242')).toMatchObject({
      outcome: 'declined',
      rawCode: 'not_a_paystack_token',
    });
    expect(sim.requests.length).toBe(before);
  });
});

describe('refunds', () => {
  it('answers a refund pending, processed later by a signed refund.processed', async () => {
    const { token } = await savedCard();
    const chargeKey = newKey('renewal');
    await charge(token, chargeKey, 10_000);
    const request = {
      chargeId: toReference(chargeKey),
      amountMinor: 4_000,
      currencyCode: 'ZAR',
      idempotencyKey: newKey('refund'),
    };
    const refund = await driver.refund!(target, request, '');
    expect(refund).toEqual({ outcome: 'pending', refundId: expect.any(String) });
    expect(sim.requests.at(-1)?.body).toEqual({
      transaction: request.chargeId,
      amount: 4_000,
      currency: 'ZAR',
      merchant_note: `openbill refund ${request.idempotencyKey}`,
    });
    if (refund.outcome !== 'pending') return;
    expect(await driver.refund!(target, request, '')).toEqual(refund);
    expect(sim.refundsOf(request.chargeId)).toHaveLength(1);
    const webhook = sim.endRefund(Number(refund.refundId), 'processed');
    expect(await driver.readWebhook!(target, webhook)).toEqual({
      outcome: 'verified',
      events: [
        {
          chargeId: request.chargeId,
          refundId: refund.refundId,
          kind: 'refund_settled',
          code: 'processed',
          reportedOn: '2026-11-26',
        },
      ],
    });
    expect(await driver.refund!(target, request, '')).toEqual({
      outcome: 'succeeded',
      refundId: refund.refundId,
    });
  });

  it('answers a refund that failed later with refund_failed, and a lost answer with the one refund made', async () => {
    const { token } = await savedCard();
    const chargeKey = newKey('renewal');
    await charge(token, chargeKey, 10_000);
    const request = {
      chargeId: toReference(chargeKey),
      amountMinor: 10_000,
      currencyCode: 'ZAR',
      idempotencyKey: newKey('refund'),
    };
    const impatient = paystackDriver(
      { settings: { secretKey: SECRET, publicKey: PUBLIC }, fetch: sim.fetch, wallClock: clock },
      { timeoutMs: 200 },
    );
    sim.loseNextAnswer(request.chargeId);
    await expect(impatient.refund!(target, request, '')).rejects.toBeInstanceOf(GatewayTimeoutError);
    const refund = await driver.refund!(target, request, '');
    expect(refund).toEqual({ outcome: 'pending', refundId: expect.any(String) });
    expect(sim.refundsOf(request.chargeId)).toHaveLength(1);
    if (refund.outcome !== 'pending') return;
    const webhook = sim.endRefund(Number(refund.refundId), 'failed');
    expect(await driver.readWebhook!(target, webhook)).toMatchObject({
      events: [{ chargeId: request.chargeId, refundId: refund.refundId, kind: 'refund_failed' }],
    });
  });

  it('declines a refund beyond what was charged', async () => {
    const { token } = await savedCard();
    const chargeKey = newKey('renewal');
    await charge(token, chargeKey, 1_000);
    const request = {
      chargeId: toReference(chargeKey),
      amountMinor: 1_001,
      currencyCode: 'ZAR',
      idempotencyKey: newKey('refund'),
    };
    expect(await driver.refund!(target, request, '')).toMatchObject({ outcome: 'declined' });
  });
});

describe('webhooks', () => {
  it('reads a dispute opened, then won or lost by its resolution', async () => {
    const { token } = await savedCard();
    const keys = [newKey('renewal'), newKey('renewal')];
    for (const key of keys) await charge(token, key);
    const [won, lost] = keys.map(toReference) as [string, string];
    expect(await driver.readWebhook!(target, sim.dispute(won, 'create'))).toEqual({
      outcome: 'verified',
      events: [
        // The amount disputed: Paystack's refund_amount, the whole charge here.
        { chargeId: won, kind: 'dispute', code: 'chargeback', reportedOn: '2026-11-26', amountMinor: 19900 },
      ],
    });
    expect(await driver.readWebhook!(target, sim.dispute(won, 'resolve', 'declined'))).toMatchObject({
      events: [{ chargeId: won, kind: 'dispute_won', code: 'declined' }],
    });
    expect(
      await driver.readWebhook!(target, sim.dispute(lost, 'resolve', 'merchant-accepted')),
    ).toMatchObject({
      events: [{ chargeId: lost, kind: 'dispute_lost', code: 'merchant-accepted' }],
    });
  });

  it('refuses a webhook signed with another key, or whose body was changed', async () => {
    const forged = sim.webhook('charge.success', { reference: 'x' }, 'sk_test_someone_else');
    expect(await driver.readWebhook!(target, forged)).toMatchObject({ outcome: 'unverified' });
    const genuine = sim.webhook('charge.success', { reference: 'x' });
    const changed = { ...genuine, rawBody: Buffer.from(genuine.rawBody.toString().replace('"x"', '"y"')) };
    expect(await driver.readWebhook!(target, changed)).toMatchObject({ outcome: 'unverified' });
    expect(await driver.readWebhook!(target, { headers: {}, rawBody: genuine.rawBody })).toMatchObject({
      outcome: 'unverified',
    });
  });

  it('verifies an event the service does not act on, with no events', async () => {
    const webhook = sim.webhook('transfer.success', { reference: 'x' });
    expect(await driver.readWebhook!(target, webhook)).toEqual({ outcome: 'verified', events: [] });
  });
});

describe('settings', () => {
  it('takes the keys with Paystack', async () => {
    expect(await driver.checkSettings!(target)).toEqual({
      outcome: 'ok',
      detail: 'Paystack took the test secret key (balances in no currency)',
    });
  });

  it('says in words that Paystack refused the secret key', async () => {
    const wrong = paystackDriver({
      settings: { secretKey: 'sk_test_revoked', publicKey: PUBLIC },
      fetch: sim.fetch,
      wallClock: clock,
    });
    expect(await wrong.checkSettings!(target)).toEqual({
      outcome: 'refused',
      message: 'Paystack refused the secret key: Invalid key',
    });
  });

  it('says a live key is on a test gateway, without a call', async () => {
    const before = sim.requests.length;
    const live = paystackDriver({
      settings: { secretKey: 'sk_live_abc', publicKey: PUBLIC },
      fetch: sim.fetch,
      wallClock: clock,
    });
    expect(await live.checkSettings!(target)).toEqual({
      outcome: 'refused',
      message: 'the secret key is a live key, on a test-mode gateway',
    });
    expect(sim.requests.length).toBe(before);
  });
});

describe('the simulator', () => {
  it('refuses a request that departs from the published document', async () => {
    const response = await sim.fetch('https://api.paystack.co/transaction/initialize', {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@example.com', ammount: 100 }),
    });
    expect(response.status).toBe(400);
    expect(sim.problems).toEqual([
      "POST /transaction/initialize: body must have required property 'amount'",
      'POST /transaction/initialize: body must NOT have additional properties (ammount)',
    ]);
    sim.problems.length = 0;
  });
});
