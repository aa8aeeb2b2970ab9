import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { eventually } from '../helpers/service.ts';
import { storedText } from '../helpers/storedText.ts';
import { startWebhookReceiver } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { PAYSTACK_TEST_CARDS, PaystackSimulator } from './paystackSimulator.ts';
import { useStory } from './story.ts';

/**
 * A Paystack authorization code is a secret (docs/gateways.md, "Provider tokens are sealed"): a card saved through
 * the capture frame, kept for its customer and charged at renewal leaves its authorization code (and the token that
 * holds it with the payer's e-mail) in no table, event, webhook body, audit entry, API answer or log line; the spec's
 * paymentMethodToken and PrimaryPaymentMethodInfo.Token carry a token of our own (docs/spec-decisions.md,
 * "Payment-method tokens").
 */

const sim = await PaystackSimulator.start('sk_test_paystacktokens00000000000000000', systemClock);
const receiver: WebhookReceiver = await startWebhookReceiver();
afterAll(() => receiver.close());
const story = useStory({
  providerFetch: () => sim.fetch,
  type: 'paystack',
  settings: () => ({ secretKey: sim.secretKey, publicKey: 'pk_test_paystacktokens00000000000000000' }),
  currencyCode: 'ZAR',
  env: {
    LOG_LEVEL: 'trace',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    WORKER_INTERVAL_MS: '50',
  },
});

/** The token the Paystack driver makes of an authorization (`paystack1.` and base64url of the code and e-mail). */
const driverToken = (authorizationCode: string, email: string) =>
  `paystack1.${Buffer.from(JSON.stringify({ a: authorizationCode, e: email }), 'utf8').toString('base64url')}`;

describe('a card saved and charged through Paystack', () => {
  beforeAll(async () => {
    await ok(story.account, 'POST', '/v1/webhookendpoints', {
      Url: `${receiver.url}/hook`,
      EnabledEvents: ['*'],
    });
  });

  it('leaves its authorization code in no table, event, webhook, audit entry, answer or log line', async () => {
    const email = 'thandi@example.co.za';
    const customer = await ok(story.account, 'POST', '/v1/customers', {
      Name: 'Thandi Tokens',
      Email: email,
      PaymentMethod: 'credit_card',
      PrimaryGatewayID: story.gatewayId,
    });
    const session = await story.session();
    const started = await story.frame(session.HashToken, 'start', { email });
    expect(started.status, started.text).toBe(200);
    const accessCode = started.body.confirm.accessCode as string;
    sim.payWithCard(accessCode, { ...PAYSTACK_TEST_CARDS.success, expiryMonth: 12, expiryYear: 2034 });
    const captured = await story.frame(session.HashToken, 'complete');
    expect(captured.status, captured.text).toBe(200);
    const authorization = sim.authorizationPaidWith(accessCode);
    expect(authorization).toMatch(/^AUTH_/);

    // The session shows a token of our own, which the customer's method keeps once complete makes it theirs.
    const read = await ok(story.account, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(read.paymentMethodToken).toMatch(/^pm_[0-9a-f]{24}$/);
    await story.complete(customer.customerID, session.SessionToken);
    const completed = await ok(
      story.account,
      'GET',
      `/v1/widgets/capturepaymethod/get/${session.SessionToken}`,
    );
    expect(completed.paymentMethodToken).toBe(read.paymentMethodToken);
    const shown = await ok(story.account, 'GET', `/v1/customers/${customer.customerID}`);
    expect(shown.PrimaryPaymentMethodInfo).toEqual({
      paymentMethodID: completed.paymentMethodID,
      Token: read.paymentMethodToken,
    });

    // A renewal charges the card with charge_authorization: the sealed token is opened for that call.
    const plan = await createPlan(story.account, { chargePrice: 99, currency: 'ZAR' });
    await subscribe(story.account, customer.customerID, plan);
    await story.collect();
    const [invoice] = await invoicesOf(story.account, customer.customerID);
    expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0 });
    // Paystack's charge.success webhook names the authorization too: read, and kept nowhere.
    const [payment] = await story.payments(customer.customerID);
    const settled = sim.settleCharge(payment.Ref);
    expect(settled.rawBody.toString()).toContain(authorization);
    expect((await story.webhook(settled)).status).toBe(200);
    const charges = sim.requests.filter((request) => request.path === '/transaction/charge_authorization');
    expect(charges.map((request) => (request.body as any)?.authorization_code)).toEqual([authorization]);

    const events = await ok(story.account, 'GET', '/v1/events?page_size=200');
    expect(events.map((event: any) => event.type)).toEqual(
      expect.arrayContaining(['capture_session.captured', 'capture_session.completed', 'payment.created']),
    );
    // Every event since the endpoint was made is delivered to it.
    const made = events.find((event: any) => event.type === 'webhook_endpoint.created').id as string;
    const sent: string[] = events
      .filter((event: any) => event.id >= made)
      .map((event: any) => event.id as string);
    const webhooks = await eventually(() => {
      const ids = new Set(receiver.received.map((request) => request.headers['webhook-id']));
      return sent.every((id) => ids.has(id)) ? receiver.received : undefined;
    });
    const answers = JSON.stringify([read, completed, shown, await story.payments(customer.customerID)]);
    const places = {
      'the database': await storedText(story.t, 'Thandi Tokens'),
      'the events': JSON.stringify(events),
      'the webhooks': webhooks.map((request) => request.body).join('\n'),
      'the audit log': JSON.stringify(await ok(story.account, 'GET', '/v1/auditlog?page_size=200')),
      'the answers': answers,
      'the logs': story.t.logs.join(''),
    };
    const token = driverToken(authorization, email);
    for (const [place, text] of Object.entries(places)) {
      expect(text.length, place).toBeGreaterThan(0);
      for (const secret of [authorization, token, token.slice('paystack1.'.length), 'paystack1.']) {
        expect(text.includes(secret), `${secret} in ${place}`).toBe(false);
      }
    }
    expect(sim.problems).toEqual([]);
  });
});
