import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import type { ServiceContext } from '../../src/context.ts';
import {
  addGateway,
  chargeStoredMethod,
  checkGatewaySettings,
  completeCardSetup,
  hostedFieldsOf,
  readGatewayWebhook,
  startCardSetup,
} from '../../src/modules/gateways/index.ts';
import { accountContext, refusedFields } from '../helpers/context.ts';
import { useTestService } from '../helpers/testService.ts';
import { StripeSimulator } from '../providers/stripeSimulator.ts';

/**
 * A Stripe gateway added to an account and used through the gateways module, against the Stripe simulator
 * (test/providers/stripeSimulator.ts): its settings checked when it is added, every call recorded without a card
 * number or a key (docs/gateways/stripe.md).
 */

let sim: StripeSimulator;
let ctx: ServiceContext;
beforeAll(async () => {
  sim = await StripeSimulator.start();
  // Webhook signatures are compared with the service's wall clock: the simulator signs at the same time.
  sim.nowSeconds = Math.floor(systemClock.now().getTime() / 1000);
});
// Options read once the hook above has started the simulator.
const t = useTestService(() => ({
  providerFetch: sim.fetch,
  seed: async () => {
    ctx = { ...(await accountContext(t, t.accountId)), providerFetch: sim.fetch };
  },
}));

const keys = () => sim.gatewaySettings;

describe('adding a Stripe gateway', () => {
  it('refuses missing keys and keys of the other mode, naming each setting', async () => {
    const none = await refusedFields(
      addGateway(ctx, { type: 'stripe', friendlyName: 'Stripe', settings: {} }),
    );
    expect(none.map((p) => p.field)).toEqual([
      'Settings.secretKey',
      'Settings.publishableKey',
      'Settings.webhookSecret',
    ]);
    const live = await refusedFields(
      addGateway(ctx, { type: 'stripe', friendlyName: 'Stripe', isTestMode: false, settings: keys() }),
    );
    expect(live.map((p) => p.field)).toEqual(['Settings.secretKey', 'Settings.publishableKey']);
  });

  it('saves a card in the Payment Element and charges it off session, recording no number or key', async () => {
    const gateway = await addGateway(ctx, {
      type: 'stripe',
      friendlyName: 'Stripe (test)',
      isTestMode: true,
      settings: keys(),
    });
    expect(gateway).toMatchObject({
      gatewayName: 'Stripe',
      type: 'stripe',
      acceptsCreditCard: true,
      acceptsBankAccount: false,
    });
    expect(await checkGatewaySettings(ctx, gateway)).toMatchObject({ outcome: 'ok' });
    const fields = await hostedFieldsOf(ctx, gateway, { currencyCode: 'USD', keepCard: true });
    expect(fields.mount.publishableKey).toBe(sim.publishableKey);

    const start = await startCardSetup(ctx, gateway, {
      idempotencyKey: 'capture-1',
      currencyCode: 'USD',
      payer: { ref: 'customer-1', email: 'ada@example.com', name: 'Ada Lovelace' },
      description: 'Card for Ada Lovelace',
      keepCard: true,
    });
    if (start.outcome !== 'ok') throw new Error(JSON.stringify(start));
    await sim.confirmInBrowser(start.confirm, { number: '4242424242424242', expMonth: 12, expYear: 2034 });
    const saved = await completeCardSetup(ctx, gateway, start.setupRef);
    if (saved.outcome !== 'ok' || !saved.sealedToken) throw new Error(JSON.stringify(saved));
    const token = ctx.secrets.open(saved.sealedToken);

    const charge = (clear: string, idempotencyKey: string) =>
      chargeStoredMethod(ctx, gateway, {
        sealedToken: ctx.secrets.seal(clear),
        amountMinor: 2500,
        currencyCode: 'USD',
        idempotencyKey,
        description: 'Invoice 1001',
      });
    expect(await charge(token, 'attempt-1')).toEqual({
      outcome: 'succeeded',
      chargeId: expect.any(String),
    });
    // Off session, a card that wants its cardholder is the customer-action decline.
    const customer = token.split(':')[1]!;
    expect(await charge(`stripe:${customer}:pm_card_authenticationRequired`, 'attempt-2')).toEqual({
      outcome: 'declined',
      reason: 'authentication_required',
      rawCode: 'authentication_required',
    });

    const webhook = await readGatewayWebhook(ctx, gateway, await sim.delivery('payment_intent.succeeded'));
    expect(webhook).toMatchObject({ outcome: 'verified', events: [{ kind: 'charge_settled' }] });

    const calls = await t.service.storage.db
      .selectFrom('gateway_calls')
      .select(['operation', 'idempotency_key', 'request', 'result'])
      .where('gateway_id', '=', gateway.id)
      .orderBy('id')
      .execute();
    expect(calls.map((c) => c.operation)).toEqual([
      'check_settings',
      'start_card_setup',
      'complete_card_setup',
      'charge',
      'charge',
    ]);
    const recorded = JSON.stringify(calls);
    expect(recorded).not.toContain('4242424242424242');
    expect(recorded).not.toContain(sim.secretKey);
    expect(sim.answerProblems).toEqual([]);
    expect(sim.refused).toEqual([]);
  });
});
