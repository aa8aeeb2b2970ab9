import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { fromCardToken } from '../../src/modules/gateways/paystack/paystackReference.ts';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { startTestService } from '../helpers/service.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { PAYSTACK_TEST_CARDS, PAYSTACK_TEST_OTP, PaystackSimulator } from './paystackSimulator.ts';

/**
 * The collection story of a South-African business on Paystack (docs/gateways/paystack.md), in ZAR, end to end
 * through the service's HTTP interface against the Paystack simulator: cards saved through the capture frame's
 * provider routes (Paystack's checkout played by the simulator, by its documented test cards), renewals charged
 * with charge_authorization, a decline inside a 200, a renewal Paystack pauses for the cardholder's OTP confirmed
 * by the customer paying in the frame, a pending charge settled, refunds pending then processed or failed, a
 * dispute opened and resolved, all late events by webhooks signed as Paystack signs them. Every request the
 * service sent was checked against Paystack's OpenAPI document (`sim.problems` stays empty).
 */

let t: TestService;
let sim: PaystackSimulator;
let account: TestAccount;
let gatewayId: number;
let gatewayToken: string;
let today: string;

const { success, pinAndOtp } = PAYSTACK_TEST_CARDS;

beforeAll(async () => {
  sim = await PaystackSimulator.start('sk_test_paystacksimulator000000000000000', systemClock);
  t = await startTestService({ providerFetch: sim.fetch });
  account = await t.newAccount('Koffie per pos', { isTest: true, timeZone: 'UTC', currencyCode: 'ZAR' });
  const ctx = { ...(await accountContext(t, account.accountId)), providerFetch: sim.fetch };
  const gateway = await addGateway(ctx, {
    type: 'paystack',
    friendlyName: 'Paystack',
    isPrimary: true,
    settings: { secretKey: sim.secretKey, publicKey: 'pk_test_paystacksimulator000000000000000' },
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

const frame = (hashToken: string, step: 'start' | 'complete', body: Record<string, unknown> = {}) =>
  t.request('POST', `/widget/capture/${hashToken}/provider/${step}`, { auth: false, body });

/**
 * The customer at the capture frame: the service initialises the transaction, the customer pays it in Paystack's
 * checkout (with the OTP when Paystack asks for one), and the service completes it by verifying with Paystack.
 */
async function throughFrame(body: Record<string, unknown>, card: { number: string }, email?: string) {
  const session = await ok(
    account,
    'POST',
    '/v1/widgets/capturepaymethod/create',
    {
      VaultingType: 'VaultGateway',
      SaleType: 'VaultOnly',
      ExpiresIn: '00:30:00',
      isVaultOnlyOnSuccess: true,
      CurrencyCode: 'ZAR',
      GatewayToken: gatewayToken,
      AuthDomain: 'https://shop.example.co.za',
      ...body,
    },
    200,
  );
  const started = await frame(session.HashToken, 'start', email ? { email } : {});
  expect(started.status, started.text).toBe(200);
  const accessCode = started.body.confirm.accessCode as string;
  const paid = sim.payWithCard(accessCode, { ...card, expiryMonth: 12, expiryYear: 2034 });
  if (paid === 'send_otp') sim.submitOtp(accessCode, PAYSTACK_TEST_OTP);
  return { answer: await frame(session.HashToken, 'complete'), session };
}

/** A customer paying by card whose card was saved in the frame: its id and the card's Paystack authorization. */
async function cardCustomer(card: { number: string }, name: string) {
  const email = `${name.toLowerCase()}@example.co.za`;
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: name,
    Email: email,
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: gatewayId,
  });
  const { answer, session } = await throughFrame({}, card, email);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toMatchObject({ type: 'card', lastFour: card.number.slice(-4), charged: false });
  const done = await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
    body: { customerID: customer.customerID, SessionToken: session.SessionToken },
  });
  expect(done.status, done.text).toBeLessThan(300);
  const saved = await ok(account, 'GET', `/v1/customers/${customer.customerID}`);
  const token = fromCardToken(saved.PrimaryPaymentMethodInfo.Token as string);
  return { customerId: customer.customerID as number, authorization: token!.authorizationCode };
}

async function webhook(delivery: { headers: Record<string, string>; rawBody: Buffer }) {
  const res = await fetch(`${t.url}/gateway-webhooks/${gatewayToken}`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.rawBody,
  });
  return { status: res.status, body: await res.json() };
}

const paymentsOf = (customerId: number) =>
  ok(account, 'GET', `/v1/customers/${customerId}/payments`) as Promise<any[]>;

describe('a South-African business collecting cards through Paystack', () => {
  let plan: { packageId: number; rateTermId: number };
  beforeAll(async () => {
    plan = await createPlan(account, { chargePrice: 114.8, currency: 'ZAR' });
  });

  let ada: number;
  it('asks the payer’s e-mail, which Paystack needs, when the session does not know it', async () => {
    const session = await ok(
      account,
      'POST',
      '/v1/widgets/capturepaymethod/create',
      {
        VaultingType: 'VaultGateway',
        SaleType: 'VaultOnly',
        ExpiresIn: '00:30:00',
        isVaultOnlyOnSuccess: true,
        CurrencyCode: 'ZAR',
        GatewayToken: gatewayToken,
        AuthDomain: 'https://shop.example.co.za',
      },
      200,
    );
    const page = await fetch(`${t.url}/widget/capture/${session.HashToken}`);
    const html = await page.text();
    expect(html).toContain('id="email"');
    expect(html).toContain('src="https://js.paystack.co/v2/inline.js"');
    expect(page.headers.get('content-security-policy')).toContain('https://js.paystack.co');
    for (const email of [undefined, 'not-an-address']) {
      const refused = await frame(session.HashToken, 'start', email ? { email } : {});
      expect(refused.status).toBe(422);
      expect(refused.body.fields).toEqual([
        { field: 'email', message: 'Enter the e-mail address for your receipt' },
      ]);
    }
    expect(sim.requests).toEqual([]);
  });

  it('saves a card in the frame (verified by a charge it refunds) and charges renewals off session', async () => {
    const { customerId } = await cardCustomer(success, 'Ada');
    ada = customerId;
    const verification = sim.requests.filter((r) => r.path === '/refund');
    expect(verification).toHaveLength(1);
    await subscribe(account, customerId, plan);
    await collect();
    const [invoice] = await invoicesOf(account, customerId);
    expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0, CurrencyCode: 'ZAR', gatewayID: gatewayId });
    const [payment] = await paymentsOf(customerId);
    expect(payment).toMatchObject({ Method: 'credit_card', Amount: 114.8, Status: 'Allocated' });
    expect(sim.chargesMade()).toContainEqual({ reference: payment.Ref, status: 'success', amount: 11480 });
  });

  it('records a decline Paystack answers inside a 200, with its reason and the next try', async () => {
    const { customerId, authorization } = await cardCustomer(success, 'Bea');
    sim.declineChargesOf(authorization, 'Insufficient Funds');
    await subscribe(account, customerId, plan);
    await collect();
    const [invoice] = await invoicesOf(account, customerId);
    expect(invoice).toMatchObject({ Status: 'Due', NumTries: 1, Balance: 114.8 });
    expect(invoice.NextTryDate).not.toBeNull();
    expect((await paymentsOf(customerId))[0]).toMatchObject({
      Status: 'Failed',
      FailureReason: 'insufficient_funds',
    });
  });

  it('stops at a renewal Paystack pauses for the cardholder, who then pays it in the frame with the OTP', async () => {
    const { customerId } = await cardCustomer(pinAndOtp, 'Cleo');
    await subscribe(account, customerId, plan);
    await collect();
    const [owed] = await invoicesOf(account, customerId);
    expect(owed).toMatchObject({ Status: 'Due', NumTries: 1, NextTryDate: null });
    expect((await paymentsOf(customerId))[0]).toMatchObject({ FailureReason: 'authentication_required' });

    const { answer, session } = await throughFrame(
      { VaultingType: 'None', SaleType: 'Sale', Amount: owed.Balance, invoiceID: owed.invoiceID },
      pinAndOtp,
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ charged: true });
    const done = await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
      body: { customerID: customerId, SessionToken: session.SessionToken },
    });
    expect(done.status, done.text).toBeLessThan(300);
    expect((await invoicesOf(account, customerId))[0]).toMatchObject({ Status: 'Paid', Balance: 0 });
  });

  it('keeps a charge Paystack leaves pending as Pending until its charge.success arrives', async () => {
    const { customerId, authorization } = await cardCustomer(success, 'Dumi');
    sim.pendChargesOf(authorization);
    await subscribe(account, customerId, plan);
    await collect();
    const [pending] = await paymentsOf(customerId);
    expect(pending.Status).toBe('Pending');
    expect(await webhook(sim.settleCharge(pending.Ref))).toMatchObject({ status: 200, body: { applied: 1 } });
    expect(await webhook(sim.settleCharge(pending.Ref))).toMatchObject({ status: 200, body: { applied: 0 } });
    expect((await paymentsOf(customerId))[0].Status).toBe('Allocated');
  });

  it('refunds through Paystack: pending, then failed (money kept) or processed (money returned)', async () => {
    const [payment] = await paymentsOf(ada);
    const first = await account.request('POST', `/v1/payments/${payment.paymentID}/refund`, {
      body: { Amount: 14.8 },
    });
    expect(first.status, first.text).toBe(200);
    const [pending] = sim.refundsOf(payment.Ref);
    expect(pending).toMatchObject({ amount: 1480 });
    expect(await webhook(sim.endRefund(pending!.id, 'failed'))).toMatchObject({ body: { applied: 1 } });
    const undone = await ok(account, 'GET', `/v1/payments/${payment.paymentID}`);
    expect(undone.Allocations.filter((a: any) => a.positiveAdjustmentID)).toEqual([]);

    const second = await account.request('POST', `/v1/payments/${payment.paymentID}/refund`, {
      body: { Amount: 14.8 },
    });
    expect(second.status, second.text).toBe(200);
    const last = sim.refundsOf(payment.Ref).at(-1)!;
    expect(await webhook(sim.endRefund(last.id, 'processed'))).toMatchObject({ body: { applied: 1 } });
    const refunded = await ok(account, 'GET', `/v1/payments/${payment.paymentID}`);
    expect(refunded.Allocations.some((a: any) => a.positiveAdjustmentID && a.amountApplied === 14.8)).toBe(
      true,
    );
  });

  it('reverses a disputed charge, and books the money back when Paystack declines the dispute', async () => {
    const { customerId } = await cardCustomer(success, 'Edda');
    await subscribe(account, customerId, plan);
    await collect();
    const [payment] = await paymentsOf(customerId);
    expect(await webhook(sim.dispute(payment.Ref, 'create'))).toMatchObject({ body: { applied: 1 } });
    expect(await ok(account, 'GET', `/v1/payments/${payment.paymentID}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'disputed',
    });
    expect(await webhook(sim.dispute(payment.Ref, 'resolve', 'declined'))).toMatchObject({
      body: { applied: 1 },
    });
    const back = (await paymentsOf(customerId)).find((p) => p.Ref === `${payment.Ref}:dispute_won`);
    expect(back).toMatchObject({ Amount: 114.8, Status: 'Unallocated' });
  });

  it('refuses a webhook signed with another key, changing nothing', async () => {
    const [payment] = await paymentsOf(ada);
    const forged = sim.webhook(
      'charge.dispute.create',
      { transaction: { reference: payment.Ref } },
      'sk_test_other',
    );
    expect((await webhook(forged)).status).toBe(400);
    expect((await ok(account, 'GET', `/v1/payments/${payment.paymentID}`)).Status).not.toBe('Failed');
  });

  it('sent Paystack only requests its OpenAPI document allows, and kept no card number or key', async () => {
    expect(sim.problems).toEqual([]);
    const calls = await t.service.storage.db.selectFrom('gateway_calls').selectAll().execute();
    const recorded =
      JSON.stringify(calls) + t.logs.join('') + JSON.stringify(await ok(account, 'GET', '/v1/events'));
    for (const secret of [success.number, pinAndOtp.number, sim.secretKey])
      expect(recorded).not.toContain(secret);
  });
});
