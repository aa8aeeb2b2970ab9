import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { startTestService } from '../helpers/service.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { StripeSimulator } from './stripeSimulator.ts';

/**
 * The collection story of a business on Stripe (docs/gateways/stripe.md), end to end through the service's HTTP
 * interface against the Stripe simulator: cards saved through the capture frame's provider routes (the browser's
 * Stripe.js played by the simulator), renewals charged off session, a decline, a 3-D Secure renewal confirmed by the
 * customer, refunds pending then settled or failed, a dispute lost then won, all late events by signed webhooks.
 * Every request the service sent was checked against Stripe's OpenAPI document (`sim.refused` stays empty).
 */

let t: TestService;
let sim: StripeSimulator;
let account: TestAccount;
let gatewayId: number;
let gatewayToken: string;
let today: string;

const VISA = '4242424242424242';
const DECLINED_WHEN_CHARGED = '4000000000000341';
const ALWAYS_AUTHENTICATE = '4000002760003184';
const DISPUTED = '4000000000000259';

beforeAll(async () => {
  sim = await StripeSimulator.start();
  // Webhook signatures are compared with the service's wall clock: the simulator signs at the same time.
  sim.nowSeconds = Math.floor(systemClock.now().getTime() / 1000);
  t = await startTestService({ providerFetch: sim.fetch });
  account = await t.newAccount('Coffee by post', { isTest: true, timeZone: 'UTC', currencyCode: 'USD' });
  const ctx = { ...(await accountContext(t, account.accountId)), providerFetch: sim.fetch };
  const gateway = await addGateway(ctx, {
    type: 'stripe',
    friendlyName: 'Stripe',
    isPrimary: true,
    settings: {
      secretKey: sim.secretKey,
      publishableKey: sim.publishableKey,
      webhookSecret: sim.webhookSecret,
    },
  });
  gatewayId = gateway.id;
  gatewayToken = gateway.token;
  const clock = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  const first = new Date(`${clock}T00:00:00.000Z`);
  first.setUTCMonth(first.getUTCMonth() + 1, 1);
  today = first.toISOString().slice(0, 10);
  await advance(`${today}T00:00:00.000Z`);
});
afterAll(() => t.close());

function advance(to: string) {
  return ok(account, 'POST', '/v1/test-clock/advance', { To: to }, 200);
}
/** The bill run and collection of the account's clock an hour later (the tests share one day until the last). */
let hours = 0;
const collect = () =>
  advance(new Date(Date.parse(`${today}T00:00:00.000Z`) + ++hours * 3_600_000).toISOString());
const monthsLater = (months: number) => {
  const d = new Date(`${today}T12:00:00.000Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString();
};

const frame = (hashToken: string, step: 'start' | 'complete') =>
  t.request('POST', `/widget/capture/${hashToken}/provider/${step}`, { auth: false, body: {} });

/**
 * The customer at the capture frame: the service starts the setup (or the sale), the browser confirms it with
 * Stripe, passing 3-D Secure when asked, and the service completes it by asking Stripe. Answers the frame's last
 * answer and the session.
 */
async function throughFrame(body: Record<string, unknown>, card: string) {
  const session = await ok(
    account,
    'POST',
    '/v1/widgets/capturepaymethod/create',
    {
      VaultingType: 'VaultGateway',
      SaleType: 'VaultOnly',
      ExpiresIn: '00:30:00',
      isVaultOnlyOnSuccess: true,
      CurrencyCode: 'USD',
      GatewayToken: gatewayToken,
      AuthDomain: 'https://shop.example.com',
      ...body,
    },
    200,
  );
  const started = await frame(session.HashToken, 'start');
  expect(started.status, started.text).toBe(200);
  await sim.confirmInBrowser(started.body.confirm, { number: card, expMonth: 12, expYear: 2034 });
  const intentId = String(started.body.confirm.clientSecret).split('_secret_')[0]!;
  if (sim.intents.get(intentId)?.status === 'requires_action') sim.authenticate(intentId);
  return { answer: await frame(session.HashToken, 'complete'), session };
}

/** A customer paying by card whose card was saved in the frame: its id and the card's payment method id. */
async function cardCustomer(card: string, name: string) {
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: name,
    Email: `${name.toLowerCase()}@example.com`,
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: gatewayId,
  });
  const { answer, session } = await throughFrame({}, card);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toMatchObject({ type: 'card', lastFour: card.slice(-4), charged: false });
  const done = await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
    body: { customerID: customer.customerID, SessionToken: session.SessionToken },
  });
  expect(done.status, done.text).toBeLessThan(300);
  const completed = await ok(account, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
  return { customerId: customer.customerID as number, methodId: completed.paymentMethodID as number };
}

async function webhook(type: string, options: { secret?: string } = {}) {
  const { headers, rawBody } = await sim.delivery(type, options);
  return fetch(`${t.url}/gateway-webhooks/${gatewayToken}`, { method: 'POST', headers, body: rawBody });
}

const paymentsOf = (customerId: number) =>
  ok(account, 'GET', `/v1/customers/${customerId}/payments`) as Promise<any[]>;

describe('a business collecting cards through Stripe', () => {
  let plan: { packageId: number; rateTermId: number };
  beforeAll(async () => {
    plan = await createPlan(account, { chargePrice: 30 });
  });

  let ada: number;
  it('saves a card in the frame and charges it off session', async () => {
    const { customerId, methodId } = await cardCustomer(VISA, 'Ada');
    ada = customerId;
    const method = await ok(account, 'GET', `/v1/paymentmethods/${methodId}`);
    expect(method).toMatchObject({ isPrimary: true });
    expect(JSON.stringify(method)).toContain('4242');
    await subscribe(account, customerId, plan);
    await collect();
    const [invoice] = await invoicesOf(account, customerId);
    expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0, gatewayID: gatewayId });
  });

  it('records a decline with its reason and the next try', async () => {
    const { customerId } = await cardCustomer(DECLINED_WHEN_CHARGED, 'Bea');
    await subscribe(account, customerId, plan);
    await collect();
    const [invoice] = await invoicesOf(account, customerId);
    expect(invoice).toMatchObject({ Status: 'Due', NumTries: 1, Balance: 30 });
    expect(invoice.NextTryDate).not.toBeNull();
    const [payment] = await paymentsOf(customerId);
    expect(payment).toMatchObject({ Status: 'Failed', FailureReason: 'card_declined' });
  });

  it('stops at a renewal the bank wants confirmed, and the customer confirms it paying in the frame', async () => {
    const { customerId } = await cardCustomer(ALWAYS_AUTHENTICATE, 'Cleo');
    await subscribe(account, customerId, plan);
    await collect();
    const [owed] = await invoicesOf(account, customerId);
    expect(owed).toMatchObject({ Status: 'Due', NumTries: 1, NextTryDate: null });
    expect((await paymentsOf(customerId))[0]).toMatchObject({ FailureReason: 'authentication_required' });

    const { answer, session } = await throughFrame(
      { VaultingType: 'None', SaleType: 'Sale', Amount: owed.Balance, invoiceID: owed.invoiceID },
      ALWAYS_AUTHENTICATE,
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ charged: true });
    const done = await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
      body: { customerID: customerId, SessionToken: session.SessionToken },
    });
    expect(done.status, done.text).toBeLessThan(300);
    const [paid] = await invoicesOf(account, customerId);
    expect(paid).toMatchObject({ Status: 'Paid', Balance: 0 });
  });

  it('refunds through Stripe: a pending refund that fails gives the money back, one that settles is kept', async () => {
    const { customerId } = await cardCustomer(VISA, 'Dora');
    await subscribe(account, customerId, plan);
    await collect();
    const [payment] = await paymentsOf(customerId);
    sim.nextRefundStatus = 'pending';
    const pending = await account.request('POST', `/v1/payments/${payment.paymentID}/refund`, {
      body: { Amount: 10 },
    });
    expect(pending.status, pending.text).toBe(200);
    const refundAtStripe = [...sim.refunds.values()].findLast((r) => r.paymentIntent === payment.Ref)!;
    expect(refundAtStripe).toMatchObject({ status: 'pending', amount: 1000 });

    sim.settleRefund(refundAtStripe.id, 'failed');
    const failed = await webhook('refund.updated');
    expect(failed.status).toBe(200);
    expect(await failed.json()).toMatchObject({ received: 1, applied: 1 });
    const undone = await ok(account, 'GET', `/v1/payments/${payment.paymentID}`);
    expect(undone.Allocations.map((a: any) => a.positiveAdjustmentID ?? 0).filter(Boolean)).toEqual([]);
    // The same event sent again (and under its other name) changes nothing more.
    expect(await (await webhook('charge.refund.updated')).json()).toMatchObject({ applied: 0 });

    const again = await account.request('POST', `/v1/payments/${payment.paymentID}/refund`, {
      body: { Amount: 10 },
    });
    expect(again.status, again.text).toBe(200);
    const second = [...sim.refunds.values()].findLast((r) => r.paymentIntent === payment.Ref)!;
    sim.settleRefund(second.id, 'succeeded');
    expect(await (await webhook('refund.updated')).json()).toMatchObject({ applied: 1 });
    const refunded = await ok(account, 'GET', `/v1/payments/${payment.paymentID}`);
    expect(refunded.Allocations.some((a: any) => a.positiveAdjustmentID && a.amountApplied === 10)).toBe(
      true,
    );
    sim.nextRefundStatus = 'succeeded';
  });

  it('reverses a disputed payment when Stripe says so, and books the money back when the dispute is won', async () => {
    const { customerId } = await cardCustomer(DISPUTED, 'Edda');
    await subscribe(account, customerId, plan);
    await collect();
    const [payment] = await paymentsOf(customerId);
    expect(payment.Status).toBe('Allocated');

    const opened = await webhook('charge.dispute.created');
    expect(await opened.json()).toMatchObject({ applied: 1 });
    expect(await ok(account, 'GET', `/v1/payments/${payment.paymentID}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'disputed',
    });
    const [owed] = await invoicesOf(account, customerId);
    expect(owed.Balance).toBe(30);

    sim.closeDispute(payment.Ref, 'won');
    expect(await (await webhook('charge.dispute.closed')).json()).toMatchObject({ applied: 1 });
    expect(await (await webhook('charge.dispute.closed')).json()).toMatchObject({ applied: 0 });
    const back = (await paymentsOf(customerId)).find((p) => p.Ref === `${payment.Ref}:dispute_won`);
    expect(back).toMatchObject({ Amount: 30, Status: 'Unallocated' });
  });

  it('charges the next renewal a month later', async () => {
    await advance(monthsLater(1));
    const invoices = await invoicesOf(account, ada);
    expect(invoices.map((invoice: any) => invoice.Status)).toEqual(['Paid', 'Paid']);
    const payments = await paymentsOf(ada);
    expect(payments.map((p) => [p.Method, p.Amount, p.Status])).toEqual([
      ['credit_card', 30, 'Allocated'],
      ['credit_card', 30, 'Allocated'],
    ]);
    for (const payment of payments) {
      expect(payment.Ref).toMatch(/^pi_/);
      expect(sim.intents.get(payment.Ref)).toMatchObject({
        status: 'succeeded',
        amount: 3000,
        currency: 'usd',
      });
    }
  });

  it('refuses a webhook signed with another secret, changing nothing', async () => {
    const before = await ok(account, 'GET', '/v1/events');
    const forged = await webhook('charge.dispute.created', { secret: 'whsec_not_the_endpoints' });
    expect(forged.status).toBe(400);
    expect(await ok(account, 'GET', '/v1/events')).toEqual(before);
  });

  it('sent Stripe only requests its OpenAPI document allows, and kept no card number or key', async () => {
    expect(sim.refused).toEqual([]);
    expect(sim.answerProblems).toEqual([]);
    const calls = await t.service.storage.db.selectFrom('gateway_calls').selectAll().execute();
    const recorded =
      JSON.stringify(calls) + t.logs.join('') + JSON.stringify(await ok(account, 'GET', '/v1/events'));
    for (const secret of [
      VISA,
      DECLINED_WHEN_CHARGED,
      ALWAYS_AUTHENTICATE,
      DISPUTED,
      sim.secretKey,
      sim.webhookSecret,
    ]) {
      expect(recorded).not.toContain(secret);
    }
  });
});
