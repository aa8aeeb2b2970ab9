import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { payLinkToken } from '../helpers/invoices.ts';
import { PAYSTACK_TEST_CARDS, PAYSTACK_TEST_OTP, PaystackSimulator } from './paystackSimulator.ts';
import { recordedText, useStory } from './story.ts';

/**
 * The collection story of a South-African business on Paystack (docs/gateways/paystack.md), in ZAR, end to end
 * through the service's HTTP interface against the Paystack simulator: cards saved through the capture frame's
 * provider routes (Paystack's checkout played by the simulator, by its documented test cards), renewals charged
 * with charge_authorization, a decline inside a 200, a renewal Paystack pauses for the cardholder's OTP confirmed
 * by the customer paying in the frame, a pending charge settled, refunds pending then processed or failed, a
 * dispute opened and resolved, all late events by webhooks signed as Paystack signs them. Every request the
 * service sent was checked against Paystack's OpenAPI document (`sim.problems` stays empty).
 */

const sim = await PaystackSimulator.start('sk_test_paystacksimulator000000000000000', systemClock);
const story = useStory({
  providerFetch: () => sim.fetch,
  type: 'paystack',
  settings: () => ({ secretKey: sim.secretKey, publicKey: 'pk_test_paystacksimulator000000000000000' }),
  currencyCode: 'ZAR',
});

const { success, pinAndOtp } = PAYSTACK_TEST_CARDS;
/** What the frames confirmed with: the customer's browser's alone, never in the service's records. */
const accessCodes: string[] = [];

/**
 * The customer at the capture frame: the service initialises the transaction, the customer pays it in Paystack's
 * checkout (with the OTP when Paystack asks for one), and the service completes it by verifying with Paystack.
 */
async function throughFrame(body: Record<string, unknown>, card: { number: string }, email?: string) {
  const session = await story.session(body);
  const started = await story.frame(session.HashToken, 'start', email ? { email } : {});
  expect(started.status, started.text).toBe(200);
  const accessCode = started.body.confirm.accessCode as string;
  accessCodes.push(accessCode);
  const paid = sim.payWithCard(accessCode, { ...card, expiryMonth: 12, expiryYear: 2034 });
  if (paid === 'send_otp') sim.submitOtp(accessCode, PAYSTACK_TEST_OTP);
  return { answer: await story.frame(session.HashToken, 'complete'), session, accessCode };
}

/** A customer paying by card whose card was saved in the frame: its id and the card's Paystack authorization. */
async function cardCustomer(card: { number: string }, name: string) {
  const email = `${name.toLowerCase()}@example.co.za`;
  const customer = await ok(story.account, 'POST', '/v1/customers', {
    Name: name,
    Email: email,
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: story.gatewayId,
  });
  const { answer, session, accessCode } = await throughFrame({}, card, email);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toMatchObject({ type: 'card', lastFour: card.number.slice(-4), charged: false });
  await story.complete(customer.customerID, session.SessionToken);
  return { customerId: customer.customerID as number, authorization: sim.authorizationPaidWith(accessCode) };
}

/**
 * The page that pays one invoice (docs/hosted-pages.md, "Paying one invoice"), as its script posts: opened from an
 * e-mail's signed link, with the HashToken of its "Confirm payment" session read from the page.
 */
async function payPage(invoiceId: number) {
  const token = payLinkToken(story.t, story.account.accountId, invoiceId);
  const html = await (await fetch(`${story.t.url}/pay/${token}`)).text();
  return {
    token,
    confirmSession: /id="confirm"[^>]*data-session="([0-9a-f]{64})"/.exec(html)?.[1],
    post: (step: 'confirm' | 'complete', body: Record<string, unknown>) =>
      story.t.request('POST', `/pay/${token}/${step}`, { auth: false, body }),
  };
}

describe('a South-African business collecting cards through Paystack', () => {
  let plan: { packageId: number; rateTermId: number };
  beforeAll(async () => {
    plan = await createPlan(story.account, { chargePrice: 114.8, currency: 'ZAR' });
  });

  let ada: number;
  it('asks the payer’s e-mail, which Paystack needs, when the session does not know it', async () => {
    const session = await story.session();
    const page = await fetch(`${story.t.url}/widget/capture/${session.HashToken}`);
    const html = await page.text();
    expect(html).toContain('id="email"');
    expect(html).toContain('src="https://js.paystack.co/v2/inline.js"');
    expect(page.headers.get('content-security-policy')).toContain('https://js.paystack.co');
    for (const email of [undefined, 'not-an-address']) {
      const refused = await story.frame(session.HashToken, 'start', email ? { email } : {});
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
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [invoice] = await invoicesOf(story.account, customerId);
    expect(invoice).toMatchObject({
      Status: 'Paid',
      Balance: 0,
      CurrencyCode: 'ZAR',
      gatewayID: story.gatewayId,
    });
    const [payment] = await story.payments(customerId);
    expect(payment).toMatchObject({ Method: 'credit_card', Amount: 114.8, Status: 'Allocated' });
    expect(sim.chargesMade()).toContainEqual({ reference: payment.Ref, status: 'success', amount: 11480 });
  });

  it('records a decline Paystack answers inside a 200, with its reason and the next try', async () => {
    const { customerId, authorization } = await cardCustomer(success, 'Bea');
    sim.declineChargesOf(authorization, 'Insufficient Funds');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [invoice] = await invoicesOf(story.account, customerId);
    expect(invoice).toMatchObject({ Status: 'Due', NumTries: 1, Balance: 114.8 });
    expect(invoice.NextTryDate).not.toBeNull();
    expect((await story.payments(customerId))[0]).toMatchObject({
      Status: 'Failed',
      FailureReason: 'insufficient_funds',
    });
  });

  it('stops at a renewal Paystack pauses for the cardholder, who then pays it in the frame with the OTP', async () => {
    const { customerId } = await cardCustomer(pinAndOtp, 'Cleo');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [owed] = await invoicesOf(story.account, customerId);
    expect(owed).toMatchObject({ Status: 'Due', NumTries: 1, NextTryDate: null });
    expect((await story.payments(customerId))[0]).toMatchObject({ FailureReason: 'authentication_required' });

    const { answer, session } = await throughFrame(
      { VaultingType: 'None', SaleType: 'Sale', Amount: owed.Balance, invoiceID: owed.invoiceID },
      pinAndOtp,
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ charged: true });
    await story.complete(customerId, session.SessionToken);
    expect((await invoicesOf(story.account, customerId))[0]).toMatchObject({ Status: 'Paid', Balance: 0 });
  });

  it('refunds through Paystack, by its reference, a renewal the customer confirmed on the pay page', async () => {
    const { customerId } = await cardCustomer(pinAndOtp, 'Gus');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [owed] = await invoicesOf(story.account, customerId);
    const page = await payPage(owed.invoiceID);
    const confirmed = await page.post('confirm', { session: page.confirmSession });
    expect(confirmed.status, confirmed.text).toBe(200);
    const accessCode = confirmed.body.action.accessCode as string;
    accessCodes.push(accessCode);
    sim.payWithCard(accessCode, { ...pinAndOtp, expiryMonth: 12, expiryYear: 2034 });
    sim.submitOtp(accessCode, PAYSTACK_TEST_OTP);
    const completed = await page.post('complete', { session: page.confirmSession, way: 'confirm' });
    expect(completed.body).toEqual({ paid: true });
    const paid = (await story.payments(customerId)).find((p) => p.Status === 'Allocated');
    expect(paid).toMatchObject({ Amount: 114.8 });

    const refund = await story.account.request('POST', `/v1/payments/${paid.paymentID}/refund`, {
      body: { Amount: 14.8 },
    });
    expect(refund.status, refund.text).toBe(200);
    const [atPaystack] = sim.refundsOf(paid.Ref);
    expect(atPaystack).toMatchObject({ amount: 1480 });
    expect(await story.webhook(sim.endRefund(atPaystack!.id, 'processed'))).toMatchObject({
      body: { applied: 1 },
    });
    const refunded = await ok(story.account, 'GET', `/v1/payments/${paid.paymentID}`);
    expect(refunded.Allocations.some((a: any) => a.positiveAdjustmentID && a.amountApplied === 14.8)).toBe(
      true,
    );
  });

  it('keeps a charge Paystack leaves pending as Pending until its charge.success arrives', async () => {
    const { customerId, authorization } = await cardCustomer(success, 'Dumi');
    sim.pendChargesOf(authorization);
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [pending] = await story.payments(customerId);
    expect(pending.Status).toBe('Pending');
    expect(await story.webhook(sim.settleCharge(pending.Ref))).toMatchObject({
      status: 200,
      body: { applied: 1 },
    });
    expect(await story.webhook(sim.settleCharge(pending.Ref))).toMatchObject({
      status: 200,
      body: { applied: 0 },
    });
    expect((await story.payments(customerId))[0].Status).toBe('Allocated');
  });

  it('refunds through Paystack: pending, then failed (money kept) or processed (money returned)', async () => {
    const [payment] = await story.payments(ada);
    const first = await story.account.request('POST', `/v1/payments/${payment.paymentID}/refund`, {
      body: { Amount: 14.8 },
    });
    expect(first.status, first.text).toBe(200);
    const [pending] = sim.refundsOf(payment.Ref);
    expect(pending).toMatchObject({ amount: 1480 });
    expect(await story.webhook(sim.endRefund(pending!.id, 'failed'))).toMatchObject({ body: { applied: 1 } });
    const undone = await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`);
    expect(undone.Allocations.filter((a: any) => a.positiveAdjustmentID)).toEqual([]);

    const second = await story.account.request('POST', `/v1/payments/${payment.paymentID}/refund`, {
      body: { Amount: 14.8 },
    });
    expect(second.status, second.text).toBe(200);
    const last = sim.refundsOf(payment.Ref).at(-1)!;
    expect(await story.webhook(sim.endRefund(last.id, 'processed'))).toMatchObject({ body: { applied: 1 } });
    const refunded = await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`);
    expect(refunded.Allocations.some((a: any) => a.positiveAdjustmentID && a.amountApplied === 14.8)).toBe(
      true,
    );
  });

  it('reverses a disputed charge, and books the money back when Paystack declines the dispute', async () => {
    const { customerId } = await cardCustomer(success, 'Edda');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [payment] = await story.payments(customerId);
    expect(await story.webhook(sim.dispute(payment.Ref, 'create'))).toMatchObject({ body: { applied: 1 } });
    expect(await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'disputed',
    });
    expect(await story.webhook(sim.dispute(payment.Ref, 'resolve', 'declined'))).toMatchObject({
      body: { applied: 1 },
    });
    const back = (await story.payments(customerId)).find((p) => p.Ref === `${payment.Ref}:dispute_won`);
    expect(back).toMatchObject({ Amount: 114.8, Status: 'Unallocated' });
  });

  it('refuses a webhook signed with another key, changing nothing', async () => {
    const [payment] = await story.payments(ada);
    const forged = sim.webhook(
      'charge.dispute.create',
      { transaction: { reference: payment.Ref } },
      'sk_test_other',
    );
    expect((await story.webhook(forged)).status).toBe(400);
    expect((await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`)).Status).not.toBe('Failed');
  });

  it('refunds unused credit of a top-up through Paystack; a failed refund gives the credit back', async () => {
    // docs/credits.md, "Refunding unused credit" and "Crediting a top-up" (Undone): the refund takes the credit when
    // Paystack accepts it, pending; Paystack failing it later gives the credit back.
    await ok(story.account, 'PUT', '/v1/account', { InvoiceDueDays: 0 });
    const { customerId } = await cardCustomer(success, 'Femi');
    const wallet = await ok(story.account, 'POST', `/v1/customers/${customerId}/wallets`, {
      CurrencyCode: 'ZAR',
    });
    await ok(story.account, 'POST', `/v1/wallets/${wallet.walletID}/top-ups`, { Amount: 400 });
    await story.collect();
    const [grant] = await ok(story.account, 'GET', `/v1/wallets/${wallet.walletID}/grants`);
    expect(grant).toMatchObject({ Kind: 'paid', Remaining: 400 });
    const [payment] = await story.payments(customerId);
    expect(payment).toMatchObject({ Amount: 400, Method: 'credit_card' });
    const refund = () =>
      story.account.request('POST', `/v1/credit-grants/${grant.creditGrantID}/refund`, {
        body: { Amount: 150 },
      });
    const grantNow = () => ok(story.account, 'GET', `/v1/credit-grants/${grant.creditGrantID}`);

    const first = await refund();
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ Remaining: 250, Refunded: 150 });
    const [pending] = sim.refundsOf(payment.Ref);
    expect(pending).toMatchObject({ amount: 15000 });
    expect(await story.webhook(sim.endRefund(pending!.id, 'failed'))).toMatchObject({ body: { applied: 1 } });
    expect(await grantNow()).toMatchObject({ Remaining: 400, Refunded: 0 });

    const second = await refund();
    expect(second.status, second.text).toBe(200);
    const last = sim.refundsOf(payment.Ref).at(-1)!;
    expect(last).toMatchObject({ amount: 15000 });
    expect(await story.webhook(sim.endRefund(last.id, 'processed'))).toMatchObject({ body: { applied: 1 } });
    expect(await grantNow()).toMatchObject({ Remaining: 250, Refunded: 150 });
    const kinds = (await ok(story.account, 'GET', `/v1/wallets/${wallet.walletID}/entries`)) as any[];
    expect(kinds.map((e) => [e.Kind, e.Amount])).toEqual(
      expect.arrayContaining([
        ['refund', 150],
        ['refund_undone', 150],
      ]),
    );
  });

  it('sent Paystack only requests its OpenAPI document allows, and kept no card number, key or access code', async () => {
    expect(sim.problems).toEqual([]);
    const recorded = await recordedText(story);
    expect(accessCodes.length).toBeGreaterThan(5);
    for (const secret of [...accessCodes, success.number, pinAndOtp.number, sim.secretKey])
      expect(recorded).not.toContain(secret);
  });
});
