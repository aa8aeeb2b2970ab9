import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { billAccount } from '../../src/billing/billRun.ts';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { issuedInvoice, payLinkToken } from '../helpers/invoices.ts';
import { StripeSimulator } from './stripeSimulator.ts';
import { recordedText, useStory } from './story.ts';

/**
 * The collection story of a business on Stripe (docs/gateways/stripe.md), end to end through the service's HTTP
 * interface against the Stripe simulator: cards saved through the capture frame's provider routes (the browser's
 * Stripe.js played by the simulator), renewals charged off session, a decline, a 3-D Secure renewal confirmed by the
 * customer, refunds pending then settled or failed, a dispute lost then won, all late events by signed webhooks, and
 * a top-up's unused credit refunded to the card (docs/credits.md, "Refunding unused credit").
 * Every request the service sent was checked against Stripe's OpenAPI document (`sim.refused` stays empty).
 */

const sim = await StripeSimulator.start();
// Webhook signatures are compared with the service's wall clock: the simulator signs at the same time.
sim.nowSeconds = Math.floor(systemClock.now().getTime() / 1000);
const story = useStory({
  providerFetch: () => sim.fetch,
  type: 'stripe',
  settings: () => sim.gatewaySettings,
  currencyCode: 'USD',
});

const VISA = '4242424242424242';
const DECLINED_WHEN_CHARGED = '4000000000000341';
const ALWAYS_AUTHENTICATE = '4000002760003184';
const DISPUTED = '4000000000000259';

/**
 * The customer at the capture frame: the service starts the setup (or the sale), the browser confirms it with
 * Stripe, passing 3-D Secure when asked, and the service completes it by asking Stripe.
 */
async function throughFrame(body: Record<string, unknown>, card: string) {
  const session = await story.session(body);
  const started = await story.frame(session.HashToken, 'start');
  expect(started.status, started.text).toBe(200);
  await sim.confirmInBrowser(started.body.confirm, { number: card, expMonth: 12, expYear: 2034 });
  const intentId = String(started.body.confirm.clientSecret).split('_secret_')[0]!;
  if (sim.intents.get(intentId)?.status === 'requires_action') sim.authenticate(intentId);
  return { answer: await story.frame(session.HashToken, 'complete'), session };
}

/** A customer paying by card whose card was saved in the frame: its id and the card's payment method id. */
async function cardCustomer(card: string, name: string) {
  const customer = await ok(story.account, 'POST', '/v1/customers', {
    Name: name,
    Email: `${name.toLowerCase()}@example.com`,
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: story.gatewayId,
  });
  const { answer, session } = await throughFrame({}, card);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toMatchObject({ type: 'card', lastFour: card.slice(-4), charged: false });
  await story.complete(customer.customerID, session.SessionToken);
  const completed = await ok(
    story.account,
    'GET',
    `/v1/widgets/capturepaymethod/get/${session.SessionToken}`,
  );
  return { customerId: customer.customerID as number, methodId: completed.paymentMethodID as number };
}

const webhook = async (type: string, options: { secret?: string } = {}) =>
  story.webhook(await sim.delivery(type, options));

describe('a business collecting cards through Stripe', () => {
  let plan: { packageId: number; rateTermId: number };
  beforeAll(async () => {
    plan = await createPlan(story.account, { chargePrice: 30 });
  });

  let ada: number;
  it('saves a card in the frame and charges it off session', async () => {
    const { customerId, methodId } = await cardCustomer(VISA, 'Ada');
    ada = customerId;
    const method = await ok(story.account, 'GET', `/v1/paymentmethods/${methodId}`);
    expect(method).toMatchObject({ isPrimary: true });
    expect(JSON.stringify(method)).toContain('4242');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [invoice] = await invoicesOf(story.account, customerId);
    expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0, gatewayID: story.gatewayId });
  });

  it('records a decline with its reason and the next try', async () => {
    const { customerId } = await cardCustomer(DECLINED_WHEN_CHARGED, 'Bea');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [invoice] = await invoicesOf(story.account, customerId);
    expect(invoice).toMatchObject({ Status: 'Due', NumTries: 1, Balance: 30 });
    expect(invoice.NextTryDate).not.toBeNull();
    const [payment] = await story.payments(customerId);
    expect(payment).toMatchObject({ Status: 'Failed', FailureReason: 'card_declined' });
  });

  it('stops at a renewal the bank wants confirmed, and the customer confirms it paying in the frame', async () => {
    const { customerId } = await cardCustomer(ALWAYS_AUTHENTICATE, 'Cleo');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [owed] = await invoicesOf(story.account, customerId);
    expect(owed).toMatchObject({ Status: 'Due', NumTries: 1, NextTryDate: null });
    expect((await story.payments(customerId))[0]).toMatchObject({ FailureReason: 'authentication_required' });

    const { answer, session } = await throughFrame(
      { VaultingType: 'None', SaleType: 'Sale', Amount: owed.Balance, invoiceID: owed.invoiceID },
      ALWAYS_AUTHENTICATE,
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ charged: true });
    await story.complete(customerId, session.SessionToken);
    const [paid] = await invoicesOf(story.account, customerId);
    expect(paid).toMatchObject({ Status: 'Paid', Balance: 0 });

    // Paid in a session that kept no card, it is still refunded through Stripe, on the charge the session made.
    const sold = (await story.payments(customerId)).find((p) => p.Status === 'Allocated');
    const refund = await story.account.request('POST', `/v1/payments/${sold.paymentID}/refund`, {
      body: { Amount: 5 },
    });
    expect(refund.status, refund.text).toBe(200);
    expect([...sim.refunds.values()].filter((r) => r.paymentIntent === sold.Ref)).toEqual([
      expect.objectContaining({ status: 'succeeded', amount: 500 }),
    ]);
    const refunded = await ok(story.account, 'GET', `/v1/payments/${sold.paymentID}`);
    expect(refunded.Allocations.some((a: any) => a.positiveAdjustmentID && a.amountApplied === 5)).toBe(true);
  });

  it('refunds through Stripe: a pending refund that fails gives the money back, one that settles is kept', async () => {
    const [payment] = await story.payments(ada);
    const refund = () =>
      story.account.request('POST', `/v1/payments/${payment.paymentID}/refund`, { body: { Amount: 10 } });
    sim.nextRefundStatus = 'pending';
    const pending = await refund();
    expect(pending.status, pending.text).toBe(200);
    const atStripe = () => [...sim.refunds.values()].findLast((r) => r.paymentIntent === payment.Ref)!;
    expect(atStripe()).toMatchObject({ status: 'pending', amount: 1000 });

    sim.settleRefund(atStripe().id, 'failed');
    expect(await webhook('refund.updated')).toMatchObject({ status: 200, body: { received: 1, applied: 1 } });
    const undone = await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`);
    expect(undone.Allocations.filter((a: any) => a.positiveAdjustmentID)).toEqual([]);
    // The same event sent again (and under its other name) changes nothing more.
    expect(await webhook('charge.refund.updated')).toMatchObject({ body: { applied: 0 } });

    const again = await refund();
    expect(again.status, again.text).toBe(200);
    sim.settleRefund(atStripe().id, 'succeeded');
    expect(await webhook('refund.updated')).toMatchObject({ body: { applied: 1 } });
    const refunded = await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`);
    expect(refunded.Allocations.some((a: any) => a.positiveAdjustmentID && a.amountApplied === 10)).toBe(
      true,
    );
    sim.nextRefundStatus = 'succeeded';
  });

  it("answers applied 1 to one of 8 copies of a refund's webhook delivered at once, 0 to the others", async () => {
    const [payment] = await story.payments(ada);
    const refund = () =>
      story.account.request('POST', `/v1/payments/${payment.paymentID}/refund`, { body: { Amount: 1 } });
    const atStripe = () => [...sim.refunds.values()].findLast((r) => r.paymentIntent === payment.Ref)!;
    const refundAdjustments = async () =>
      (await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`)).Allocations.filter(
        (a: any) => a.positiveAdjustmentID,
      ).length;
    const before = await refundAdjustments();
    sim.nextRefundStatus = 'pending';
    try {
      for (const status of ['failed', 'succeeded'] as const) {
        const pending = await refund();
        expect(pending.status, pending.text).toBe(200);
        sim.settleRefund(atStripe().id, status);
        const delivery = await sim.delivery('refund.updated');
        const answers = await Promise.all(Array.from({ length: 8 }, () => story.webhook(delivery)));
        expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
        // The ledger changes once, and exactly one answer says so (docs/gateways.md, "Late events").
        expect(answers.map((answer) => answer.body.applied).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
      }
    } finally {
      sim.nextRefundStatus = 'succeeded';
    }
    // The failed refund gave its money back; the settled one kept its adjustment.
    expect(await refundAdjustments()).toBe(before + 1);
  });

  it('reverses a disputed payment when Stripe says so, and books the money back when the dispute is won', async () => {
    const { customerId } = await cardCustomer(DISPUTED, 'Edda');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [payment] = await story.payments(customerId);
    expect(payment.Status).toBe('Allocated');

    expect(await webhook('charge.dispute.created')).toMatchObject({ body: { applied: 1 } });
    expect(await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'disputed',
    });
    expect((await invoicesOf(story.account, customerId))[0].Balance).toBe(30);

    sim.closeDispute(payment.Ref, 'won');
    expect(await webhook('charge.dispute.closed')).toMatchObject({ body: { applied: 1 } });
    expect(await webhook('charge.dispute.closed')).toMatchObject({ body: { applied: 0 } });
    const back = (await story.payments(customerId)).find((p) => p.Ref === `${payment.Ref}:dispute_won`);
    expect(back).toMatchObject({ Amount: 30, Status: 'Unallocated' });
  });

  it('applies a won dispute told before the dispute itself, and once when delivered twice at once', async () => {
    const { customerId } = await cardCustomer(DISPUTED, 'Fia');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [payment] = await story.payments(customerId);
    sim.closeDispute(payment.Ref, 'won');
    const closed = await sim.delivery('charge.dispute.closed');
    const [first, second] = await Promise.all([story.webhook(closed), story.webhook(closed)]);
    expect([first.body.applied, second.body.applied].sort()).toEqual([0, 1]);
    expect(await webhook('charge.dispute.created')).toMatchObject({ body: { applied: 0 } });
    const payments = await story.payments(customerId);
    expect(payments.map((p) => [p.Ref, p.Status, p.Amount])).toEqual([
      [payment.Ref, 'Failed', 30],
      [`${payment.Ref}:dispute_won`, 'Unallocated', 30],
    ]);
  });

  it("applies a webhook only to its own gateway's charges: another gateway's webhook naming the charge changes nothing", async () => {
    const { customerId } = await cardCustomer(DISPUTED, 'Gus');
    await subscribe(story.account, customerId, plan);
    await story.collect();
    const [payment] = await story.payments(customerId);
    expect(payment.Status).toBe('Allocated');
    // A second Stripe gateway of the account (another Stripe account, say), whose webhook tells of the first's charge.
    const ctx = { ...(await accountContext(story.t, story.account.accountId)), providerFetch: sim.fetch };
    const other = await addGateway(ctx, {
      type: 'stripe',
      friendlyName: 'Stripe, the other account',
      isPrimary: false,
      settings: sim.gatewaySettings,
    });
    const delivery = await sim.delivery('charge.dispute.created');
    const toOther = await fetch(`${story.t.url}/gateway-webhooks/${other.token}`, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.rawBody,
    });
    expect(toOther.status).toBe(200);
    expect(await toOther.json()).toMatchObject({ received: 1, applied: 0 });
    expect(await ok(story.account, 'GET', `/v1/payments/${payment.paymentID}`)).toMatchObject({
      Status: 'Allocated',
    });
    // The gateway that made the charge is heard.
    expect(await story.webhook(delivery)).toMatchObject({ body: { applied: 1 } });
  });

  it('charges the next renewal a month later', async () => {
    await story.monthsLater(1);
    const invoices = await invoicesOf(story.account, ada);
    expect(invoices.map((invoice: any) => invoice.Status)).toEqual(['Paid', 'Paid']);
    const payments = await story.payments(ada);
    expect(payments.map((p) => [p.Method, p.Amount])).toEqual([
      ['credit_card', 30],
      ['credit_card', 30],
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
    const before = await ok(story.account, 'GET', '/v1/events');
    const forged = await webhook('charge.dispute.created', { secret: 'whsec_not_the_endpoints' });
    expect(forged.status).toBe(400);
    expect(await ok(story.account, 'GET', '/v1/events')).toEqual(before);
  });

  it('refunds unused credit of a top-up the card paid through Stripe', async () => {
    // docs/credits.md, "Refunding unused credit": the top-up's charge refunded through the refund use case.
    await ok(story.account, 'PUT', '/v1/account', { InvoiceDueDays: 0 });
    const { customerId } = await cardCustomer(VISA, 'Cleo');
    const wallet = await ok(story.account, 'POST', `/v1/customers/${customerId}/wallets`, {
      CurrencyCode: 'USD',
    });
    await ok(story.account, 'POST', `/v1/wallets/${wallet.walletID}/top-ups`, { Amount: 40 });
    // The clock stands a month on already: the next run a month later charges the top-up.
    await story.monthsLater(2);
    const [grant] = await ok(story.account, 'GET', `/v1/wallets/${wallet.walletID}/grants`);
    expect(grant).toMatchObject({ Kind: 'paid', Remaining: 40 });
    const [payment] = await story.payments(customerId);
    expect(payment).toMatchObject({ Amount: 40, Method: 'credit_card' });
    const refunded = await story.account.request('POST', `/v1/credit-grants/${grant.creditGrantID}/refund`, {
      body: { Amount: 15 },
    });
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body).toMatchObject({ Remaining: 25, Refunded: 15 });
    expect([...sim.refunds.values()].findLast((r) => r.paymentIntent === payment.Ref)).toMatchObject({
      status: 'succeeded',
      amount: 1500,
    });
  });

  /**
   * docs/hosted-pages.md, "When the browser never comes back": an invoice's pay page, whose "Pay with another card"
   * is Stripe's Payment Element; the customer pays there and the browser never returns to the service.
   */
  async function paidInStripeElement(name: string) {
    const customer = await ok(story.account, 'POST', '/v1/customers', {
      Name: name,
      Email: `${name.toLowerCase()}@example.com`,
      PaymentMethod: 'credit_card',
    });
    const invoice = await issuedInvoice(story.account, { customerId: customer.customerID, amount: 45 });
    const token = payLinkToken(story.t, story.account.accountId, invoice.invoiceID);
    const html = await (await fetch(`${story.t.url}/pay/${token}`)).text();
    const hashToken = /data-hash-token="([^"]+)"/.exec(html)![1]!;
    const started = await story.frame(hashToken, 'start');
    expect(started.status, started.text).toBe(200);
    await sim.confirmInBrowser(started.body.confirm, { number: VISA, expMonth: 12, expYear: 2034 });
    const intentId = String(started.body.confirm.clientSecret).split('_secret_')[0]!;
    return { customerId: customer.customerID as number, invoiceId: invoice.invoiceID as number, intentId };
  }

  /** The invoice Paid by exactly one payment of 45.00, the card kept as the customer's primary. */
  async function paidOnceThroughStripe(s: { customerId: number; invoiceId: number }) {
    expect(await ok(story.account, 'GET', `/v1/invoices/${s.invoiceId}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
    expect(await story.payments(s.customerId)).toEqual([
      expect.objectContaining({ Amount: 45, Status: 'Allocated', Method: 'credit_card' }),
    ]);
    const [method] = await ok(story.account, 'GET', `/v1/customers/${s.customerId}/paymentmethods`);
    expect(method).toMatchObject({ isPrimary: true });
  }

  it('records a pay-page payment from Stripe’s payment_intent.succeeded alone, once', async () => {
    const s = await paidInStripeElement('Dora');
    expect(sim.intents.get(s.intentId)?.status).toBe('succeeded');
    expect(await webhook('payment_intent.succeeded')).toMatchObject({ status: 200, body: { applied: 1 } });
    await paidOnceThroughStripe(s);
    // Stripe delivers again: nothing more is recorded.
    expect(await webhook('payment_intent.succeeded')).toMatchObject({ status: 200, body: { applied: 0 } });
    await paidOnceThroughStripe(s);
  });

  it('records a pay-page payment no browser or webhook told of, when the collection run asks Stripe', async () => {
    const s = await paidInStripeElement('Ezra');
    const run = (minutes: number) =>
      accountContext(story.t, story.account.accountId, systemClock, {
        now: () => new Date(Date.now() + minutes * 60_000),
      }).then((ctx) => billAccount({ ...ctx, providerFetch: sim.fetch }));
    // Before the documented 10 minutes the run leaves the Payment Element alone; after them, Stripe is asked.
    await run(1);
    expect((await ok(story.account, 'GET', `/v1/invoices/${s.invoiceId}`)).Status).not.toBe('Paid');
    await run(11);
    await paidOnceThroughStripe(s);
    await run(12);
    expect(await story.payments(s.customerId)).toHaveLength(1);
  });

  it('sent Stripe only requests its OpenAPI document allows, and kept no card number, key or client secret', async () => {
    expect(sim.refused).toEqual([]);
    expect(sim.answerProblems).toEqual([]);
    const recorded = await recordedText(story);
    const clientSecrets = [...sim.intents.values()].map((intent) => intent.clientSecret);
    expect(clientSecrets.length).toBeGreaterThan(5);
    for (const secret of [
      ...clientSecrets,
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
