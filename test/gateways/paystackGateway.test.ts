import { beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import type { ServiceContext } from '../../src/context.ts';
import {
  addCheckedGateway,
  addGateway,
  listGateways,
  chargeStoredMethod,
  checkGatewaySettings,
  completeCardSetup,
  hostedFieldsOf,
  readGatewayWebhook,
  startCardSetup,
  usesHostedFields,
} from '../../src/modules/gateways/index.ts';
import { accountContext, refusedFields } from '../helpers/context.ts';
import { useTestService } from '../helpers/testService.ts';
import { PAYSTACK_TEST_CARDS, PaystackSimulator } from '../providers/paystackSimulator.ts';

// A Paystack gateway through the gateways module, as collections and the capture frame use it: added with its keys
// (sealed), its driver given the keys opened and the provider's simulator as its HTTP client, every call recorded
// (docs/gateways/paystack.md). The driver's own cases are in src/modules/gateways/paystack/paystackDriver.test.ts.

const TEST_KEYS = { secretKey: 'sk_test_4f1c2a9b7d', publicKey: 'pk_test_4f1c2a9b7d' };
const LIVE_KEYS = { secretKey: 'sk_live_4f1c2a9b7d', publicKey: 'pk_live_4f1c2a9b7d' };

let sim: PaystackSimulator;
let testCtx: ServiceContext;
let liveCtx: ServiceContext;

const t = useTestService();
beforeAll(async () => {
  sim = await PaystackSimulator.start(TEST_KEYS.secretKey, fixedClock('2026-11-26T10:00:00.000Z'));
  const testAccount = await t.newAccount('Test Shop', { isTest: true });
  testCtx = { ...(await accountContext(t, testAccount.accountId)), providerFetch: sim.fetch };
  liveCtx = await accountContext(t, t.accountId);
});

const refusal = (ctx: ServiceContext, settings: unknown, isTestMode?: boolean) =>
  refusedFields(addGateway(ctx, { type: 'paystack', friendlyName: 'Paystack', settings, isTestMode }));

describe('adding a Paystack gateway', () => {
  it("refuses live keys on a test account's gateway, naming each", async () => {
    expect(await refusal(testCtx, LIVE_KEYS)).toEqual([
      { field: 'Settings.secretKey', message: 'is a live key on a test-mode gateway: use sk_test_…' },
      { field: 'Settings.publicKey', message: 'is a live key on a test-mode gateway: use pk_test_…' },
    ]);
  });

  it('refuses test keys on a live gateway, missing keys and unknown settings', async () => {
    expect(await refusal(liveCtx, TEST_KEYS, false)).toEqual([
      { field: 'Settings.secretKey', message: 'is a test key on a live-mode gateway: use sk_live_…' },
      { field: 'Settings.publicKey', message: 'is a test key on a live-mode gateway: use pk_live_…' },
    ]);
    expect(await refusal(liveCtx, { secretKey: 'sk_live_x', webhookSecret: 'w' })).toEqual([
      { field: 'Settings.webhookSecret', message: 'is not a Paystack setting (secretKey, publicKey)' },
      { field: 'Settings.publicKey', message: 'is required: the Paystack public key' },
    ]);
  });

  it('takes keys of its mode: a card gateway with hosted fields, no bank debits', async () => {
    const live = await addGateway(liveCtx, {
      type: 'paystack',
      friendlyName: 'Paystack live',
      settings: LIVE_KEYS,
    });
    expect(live).toMatchObject({ gatewayName: 'Paystack', isTestMode: false, acceptsCreditCard: true });
    expect(live.acceptsBankAccount).toBe(false);
    const test = await addGateway(testCtx, {
      type: 'paystack',
      friendlyName: 'Paystack',
      settings: TEST_KEYS,
    });
    expect(test.isTestMode).toBe(true);
    expect(usesHostedFields(test)).toBe(true);
  });
});

describe('adding a Paystack gateway whose check fails', () => {
  const input = { type: 'paystack', friendlyName: 'Cards', isPrimary: true };
  const gatewaysOf = async (ctx: ServiceContext) =>
    (await listGateways(ctx, { limit: 50, offset: 0 })).map((g) => [g.type, g.isEnabled, g.isPrimary]);

  it('adds it disabled and not primary while Paystack refuses its keys; the same add again enables that one', async () => {
    const shop = await t.newAccount('Retry Shop', { isTest: true });
    const ctx = { ...(await accountContext(t, shop.accountId)), providerFetch: sim.fetch };
    const refused = await addCheckedGateway(ctx, {
      ...input,
      settings: { secretKey: 'sk_test_revoked', publicKey: TEST_KEYS.publicKey },
    });
    expect(refused.check).toEqual({
      outcome: 'refused',
      message: 'Paystack refused the secret key: Invalid key',
    });
    expect(refused.retried).toBe(false);
    // Before: the gateway was added enabled and primary whatever Paystack said.
    expect(await gatewaysOf(ctx)).toEqual([
      ['test', true, true],
      ['paystack', false, false],
    ]);

    const again = await addCheckedGateway(ctx, { ...input, settings: TEST_KEYS });
    expect(again).toMatchObject({ check: { outcome: 'ok' }, retried: true });
    expect(again.gateway.id).toBe(refused.gateway.id);
    expect(await gatewaysOf(ctx)).toEqual([
      ['test', true, false],
      ['paystack', true, true],
    ]);
    // Once in use, adding it a third time is refused rather than making a second copy.
    await expect(addCheckedGateway(ctx, { ...input, settings: TEST_KEYS })).rejects.toMatchObject({
      code: 'gateway_exists',
    });
    expect(await gatewaysOf(ctx)).toHaveLength(2);
  });

  it('adds it disabled, said in words, when Paystack cannot be reached', async () => {
    const shop = await t.newAccount('Offline Shop', { isTest: true });
    const unreachable: typeof fetch = () => Promise.reject(new TypeError('fetch failed'));
    const ctx = { ...(await accountContext(t, shop.accountId)), providerFetch: unreachable };
    const added = await addCheckedGateway(ctx, { ...input, settings: TEST_KEYS });
    expect(added.check).toEqual({
      outcome: 'unreachable',
      message: 'the provider could not be reached (the gateway did not answer check_settings in time)',
    });
    expect(await gatewaysOf(ctx)).toEqual([
      ['test', true, true],
      ['paystack', false, false],
    ]);
  });
});

describe('a Paystack gateway at work', () => {
  it('saves a card and charges it, its calls recorded without the card or the keys', async () => {
    const gateway = await addGateway(testCtx, { type: 'paystack', friendlyName: 'P', settings: TEST_KEYS });
    expect((await hostedFieldsOf(testCtx, gateway, { currencyCode: 'ZAR', keepCard: true })).mount).toEqual({
      publicKey: TEST_KEYS.publicKey,
    });
    expect(await checkGatewaySettings(testCtx, gateway)).toMatchObject({ outcome: 'ok' });
    const payer = { ref: '9', email: 'owner@example.co.za', name: 'Owner' };
    const start = await startCardSetup(testCtx, gateway, {
      idempotencyKey: 'capture_paystack_1',
      amountMinor: 34_500,
      currencyCode: 'ZAR',
      payer,
      description: 'First month',
      keepCard: true,
    });
    if (start.outcome !== 'ok') throw new Error(JSON.stringify(start));
    sim.payWithCard(start.confirm.accessCode!, {
      number: PAYSTACK_TEST_CARDS.success.number,
      expiryMonth: 9,
      expiryYear: 2031,
    });
    const done = await completeCardSetup(testCtx, gateway, start.setupRef);
    if (done.outcome !== 'ok' || !done.sealedToken) throw new Error(JSON.stringify(done));
    expect(done.card).toEqual({ cardType: 'Visa', lastFour: '4081', expiryMonth: 9, expiryYear: 2031 });
    // The authorization code leaves the gateways module sealed only (docs/gateways.md, "Provider tokens are sealed").
    const token = testCtx.secrets.open(done.sealedToken);
    expect(token).toMatch(/^paystack1\./);
    expect(done.sealedToken).not.toContain(token);
    const request = {
      sealedToken: done.sealedToken,
      amountMinor: 34_500,
      currencyCode: 'ZAR',
      idempotencyKey: 'charge_1_1',
      description: 'Renewal',
    };
    expect(await chargeStoredMethod(testCtx, gateway, request)).toMatchObject({ outcome: 'succeeded' });

    const calls = await t.service.storage.db
      .selectFrom('gateway_calls')
      .select(['operation', 'request', 'result', 'outcome'])
      .where('gateway_id', '=', gateway.id)
      .orderBy('id')
      .execute();
    expect(calls.map((call) => call.operation)).toEqual([
      'check_settings',
      'start_card_setup',
      'complete_card_setup',
      'charge',
    ]);
    const recorded = JSON.stringify(calls);
    expect(recorded).not.toContain(PAYSTACK_TEST_CARDS.success.number);
    expect(recorded).not.toContain(TEST_KEYS.secretKey);
    expect(recorded).not.toContain(token);
    expect(recorded).not.toMatch(/AUTH_/);
    expect(sim.problems.splice(0)).toEqual([]);
  });

  it('reads a webhook signed with the secret key kept sealed, and refuses a forged one', async () => {
    const gateway = await addGateway(testCtx, { type: 'paystack', friendlyName: 'W', settings: TEST_KEYS });
    const genuine = sim.webhook('charge.dispute.create', {
      transaction: { reference: 'charge.5f1.5f1' },
      createdAt: '2026-11-20T08:00:00.000Z',
      category: 'fraud',
    });
    expect(await readGatewayWebhook(testCtx, gateway, genuine)).toEqual({
      outcome: 'verified',
      events: [{ chargeId: 'charge.5f1.5f1', kind: 'dispute', code: 'fraud', reportedOn: '2026-11-20' }],
    });
    const forged = sim.webhook(
      'charge.dispute.create',
      { transaction: { reference: 'x' } },
      'sk_test_forger',
    );
    expect(await readGatewayWebhook(testCtx, gateway, forged)).toMatchObject({ outcome: 'unverified' });
  });
});
