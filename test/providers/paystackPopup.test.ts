import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { billAccount } from '../../src/billing/billRun.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { issuedInvoice, payLinkToken } from '../helpers/invoices.ts';
import { startSmtpReceiver } from '../helpers/smtp.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';
import { PortalClient, hiddenFieldsOf, invoicePayForm } from '../portal/fixtures.ts';
import { PAYSTACK_TEST_CARDS, PaystackSimulator } from './paystackSimulator.ts';
import { useStory } from './story.ts';

/**
 * Nothing a customer pays in Paystack's popup is lost, and nothing is charged twice (docs/hosted-pages.md, "When the
 * browser never comes back"): the pay page's "Pay with another card" opens Paystack's checkout; the customer pays
 * there; then the provider's charge.success webhook, the frame's own complete and the page's post arrive in any
 * order, or none of them and the collection run asks Paystack. Each way ends with one payment of the invoice and
 * the customer's receipt. Every request the service sent was checked against Paystack's OpenAPI document.
 */

const sim = await PaystackSimulator.start('sk_test_paystackpopup0000000000000000000', systemClock);
const smtp = await startSmtpReceiver();
afterAll(() => smtp.close());
const story = useStory({
  providerFetch: () => sim.fetch,
  type: 'paystack',
  settings: () => ({ secretKey: sim.secretKey, publicKey: 'pk_test_paystackpopup0000000000000000000' }),
  currencyCode: 'ZAR',
  smtpUrl: () => smtp.url,
});
const { success } = PAYSTACK_TEST_CARDS;
const card = { ...success, expiryMonth: 12, expiryYear: 2034 };

let customers = 0;
/** A customer with an invoice of 100.00 due, and the pay page its e-mail links to. */
async function invoiceToPay() {
  customers += 1;
  const email = `payer${customers}@example.co.za`;
  const customer = await ok(story.account, 'POST', '/v1/customers', {
    Name: `Payer ${customers}`,
    Email: email,
    PaymentMethod: 'credit_card',
  });
  const invoice = await issuedInvoice(story.account, { customerId: customer.customerID, amount: 100 });
  const token = payLinkToken(story.t, story.account.accountId, invoice.invoiceID);
  return {
    email,
    customerId: customer.customerID as number,
    invoiceId: invoice.invoiceID as number,
    /** The page's "Pay with another card" frame, as a load of the page makes it: its HashToken. */
    async cardFrame() {
      const html = await (await fetch(`${story.t.url}/pay/${token}`)).text();
      return /data-hash-token="([^"]+)"/.exec(html)![1]!;
    },
    /** The page's post once the frame said it charged. */
    pagePost: (session: string) =>
      story.t.request('POST', `/pay/${token}/complete`, { auth: false, body: { session, way: 'card' } }),
  };
}

/** The frame's start, and the customer paying in Paystack's checkout: the transaction's reference. */
async function paidInPopup(hashToken: string): Promise<string> {
  const started = await story.frame(hashToken, 'start');
  expect(started.status, started.text).toBe(200);
  return sim.checkout(started.body.confirm.accessCode, { card }).reference;
}

/** The invoice ends Paid with exactly one payment of 100.00, and the customer got one receipt. */
async function paidOnce(s: { customerId: number; invoiceId: number; email: string }) {
  expect(await ok(story.account, 'GET', `/v1/invoices/${s.invoiceId}`)).toMatchObject({
    Status: 'Paid',
    Balance: 0,
  });
  const payments = await story.payments(s.customerId);
  expect(payments).toEqual([expect.objectContaining({ Amount: 100, Status: 'Allocated' })]);
  const mails = await deliveredTo(story.t, smtp, story.account.accountId, s.email);
  expect(mails.filter((m) => /Receipt/.test(m.subject))).toHaveLength(1);
}

describe('a charge made in Paystack’s popup', () => {
  beforeAll(() => {
    expect(story.gatewayId).toBeGreaterThan(0);
  });

  it('is recorded by the webhook that arrives before the browser, and once when the browser comes', async () => {
    const s = await invoiceToPay();
    const frame = await s.cardFrame();
    const reference = await paidInPopup(frame);
    expect(await story.webhook(sim.settleCharge(reference))).toMatchObject({
      status: 200,
      body: { applied: 1 },
    });
    const late = await story.frame(frame, 'complete');
    expect(late.status, late.text).toBe(200);
    expect(late.body).toMatchObject({ charged: true, lastFour: success.number.slice(-4) });
    expect((await s.pagePost(frame)).body).toEqual({ paid: true });
    await paidOnce(s);
  });

  it('is recorded by the browser, and the webhook after it records nothing more', async () => {
    const s = await invoiceToPay();
    const frame = await s.cardFrame();
    const reference = await paidInPopup(frame);
    expect((await story.frame(frame, 'complete')).status).toBe(200);
    // The frame's complete recorded the payment: the page's own post need not come.
    expect(await story.webhook(sim.settleCharge(reference))).toMatchObject({ body: { applied: 0 } });
    await paidOnce(s);
  });

  it('is recorded by the webhook alone when the browser never comes back', async () => {
    const s = await invoiceToPay();
    const reference = await paidInPopup(await s.cardFrame());
    expect(await story.webhook(sim.settleCharge(reference))).toMatchObject({ body: { applied: 1 } });
    await paidOnce(s);
  });

  it('is recorded by the collection run when neither the browser nor the webhook comes', async () => {
    const s = await invoiceToPay();
    await paidInPopup(await s.cardFrame());
    const run = (minutes: number) =>
      accountContext(story.t, story.account.accountId, systemClock, {
        now: () => new Date(Date.now() + minutes * 60_000),
      }).then((ctx) => billAccount({ ...ctx, providerFetch: sim.fetch }));
    // Before the documented delay the run leaves the popup alone; after it, Paystack is asked.
    await run(1);
    expect((await ok(story.account, 'GET', `/v1/invoices/${s.invoiceId}`)).Status).not.toBe('Paid');
    await run(11);
    await paidOnce(s);
    await run(12);
    expect(await story.payments(s.customerId)).toHaveLength(1);
  });

  it('holds the invoice as a payment in flight while the popup waits: a second tab charges nothing', async () => {
    const s = await invoiceToPay();
    const frame = await s.cardFrame();
    const started = await story.frame(frame, 'start');
    expect(started.status, started.text).toBe(200);
    // The page opened again in another tab shows the same session, whose popup is the same transaction.
    expect(await s.cardFrame()).toBe(frame);
    // A merchant's sale of the same invoice meanwhile is refused before anything reaches Paystack.
    const other = await story.session({
      VaultingType: 'None',
      SaleType: 'Sale',
      Amount: 100,
      invoiceID: s.invoiceId,
    });
    const initialised = sim.requests.filter((r) => r.path === '/transaction/initialize').length;
    const refused = await story.frame(other.HashToken, 'start', { email: s.email });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.code).toBe('invoice_payment_in_flight');
    expect(sim.requests.filter((r) => r.path === '/transaction/initialize')).toHaveLength(initialised);
    sim.checkout(started.body.confirm.accessCode, { card });
    expect((await story.frame(frame, 'complete')).status).toBe(200);
    await paidOnce(s);
  });

  /**
   * The invoice paid another way while the popup waited (the staff record an EFT), then the customer finishes the
   * popup and Paystack's webhook tells of the charge: the invoice keeps its one payment, and the late charge is
   * refunded or kept as credit as the account chose, the customer and the staff told which.
   */
  async function paidMeanwhile(lateCharges: 'refund' | 'credit') {
    await ok(story.account, 'PUT', '/v1/account', {
      LateChargesOnPaidInvoices: lateCharges,
      StaffEmail: 'staff@popup.example',
    });
    const s = await invoiceToPay();
    const started = await story.frame(await s.cardFrame(), 'start');
    expect(started.status, started.text).toBe(200);
    await ok(story.account, 'POST', '/v1/payments', {
      customerID: s.customerId,
      Amount: 100,
      CurrencyCode: 'ZAR',
      Date: ((await ok(story.account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10),
      Method: 'eft',
      Allocations: [{ invoiceID: s.invoiceId, amountApplied: 100 }],
    });
    const { reference } = sim.checkout(started.body.confirm.accessCode, { card });
    expect(await story.webhook(sim.settleCharge(reference))).toMatchObject({ body: { applied: 1 } });
    expect(await ok(story.account, 'GET', `/v1/invoices/${s.invoiceId}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
    const payments = await story.payments(s.customerId);
    expect(payments).toHaveLength(2);
    const eft = payments.find((p: any) => p.Method === 'eft');
    expect(eft.Allocations).toEqual([
      expect.objectContaining({ invoiceID: s.invoiceId, amountApplied: 100 }),
    ]);
    const late = payments.find((p: any) => p.Ref === reference);
    const mails = await deliveredTo(story.t, smtp, story.account.accountId, s.email);
    const staff = (await deliveredTo(story.t, smtp, story.account.accountId, 'staff@popup.example')).filter(
      (m) =>
        m.subject.includes(`Payment ${late.paymentID} `) || m.text.includes(`Payment ${late.paymentID} `),
    );
    return { s, reference, late, mails, staff };
  }

  it('refunds through Paystack a charge that arrives for an invoice already paid, and says so', async () => {
    const { reference, late, mails, staff } = await paidMeanwhile('refund');
    // The whole 100.00 went back to the card through Paystack, by the transaction's reference.
    expect(sim.refundsOf(reference)).toEqual([expect.objectContaining({ amount: 10_000 })]);
    const refunded = await ok(story.account, 'GET', `/v1/payments/${late.paymentID}`);
    expect(refunded.Allocations).toEqual([
      expect.objectContaining({ positiveAdjustmentID: expect.any(Number), amountApplied: 100 }),
    ]);
    const told = mails.filter((m) => /already paid/.test(m.subject));
    expect(told.map((m) => m.subject)).toEqual([
      expect.stringMatching(/already paid: ZAR 100\.00 refunded$/),
    ]);
    expect(told[0]!.text).toMatch(/We have refunded it to Visa ending \d{4}/);
    // No receipt for money the invoice never took: the notice above tells of it.
    expect(mails.filter((m) => /Receipt/.test(m.subject))).toHaveLength(0);
    expect(staff).toEqual([
      expect.objectContaining({ subject: expect.stringMatching(/paid twice: ZAR 100\.00 refunded$/) }),
    ]);
    expect(staff[0]!.text).toContain('refunded through the gateway that charged it');
  });

  it('keeps such a charge as the customer’s credit where the account chose so, and says so', async () => {
    const { reference, late, mails, staff } = await paidMeanwhile('credit');
    expect(sim.refundsOf(reference)).toEqual([]);
    expect(await ok(story.account, 'GET', `/v1/payments/${late.paymentID}`)).toMatchObject({
      Amount: 100,
      Allocations: [],
    });
    const told = mails.filter((m) => /already paid/.test(m.subject));
    expect(told.map((m) => m.subject)).toEqual([expect.stringMatching(/ZAR 100\.00 kept as credit$/)]);
    expect(told[0]!.text).toContain('kept it as credit on your account');
    expect(staff).toEqual([expect.objectContaining({ subject: expect.stringMatching(/kept as credit$/) })]);
    expect(staff[0]!.text).toContain(`POST /v1/payments/${late.paymentID}/refund`);
    await ok(story.account, 'PUT', '/v1/account', { LateChargesOnPaidInvoices: 'refund' });
  });

  it('tells the merchant of its own session by events it can act on: complete by iframeCapturePayID', async () => {
    const s = await invoiceToPay();
    const session = await story.session({
      VaultingType: 'None',
      SaleType: 'Sale',
      Amount: 100,
      invoiceID: s.invoiceId,
    });
    const started = await story.frame(session.HashToken, 'start', { email: s.email });
    expect(started.status, started.text).toBe(200);
    const { reference } = sim.checkout(started.body.confirm.accessCode, { card });
    // The browser never comes back; Paystack's webhook captures the session, which only the merchant can complete.
    expect(await story.webhook(sim.settleCharge(reference))).toMatchObject({ body: { applied: 1 } });
    const events = await ok(story.account, 'GET', '/v1/events?type=capture_session.captured&page_size=100');
    const captured = events.find((e: any) => e.resource.id === session.iframeCapturePayID);
    expect(captured.data.object).toMatchObject({
      iframeCapturePayID: session.iframeCapturePayID,
      SessionToken: null,
      HashToken: null,
      State: 'captured',
      Purpose: 'pay_invoice',
      invoiceID: s.invoiceId,
      Amount: 100,
      CurrencyCode: 'ZAR',
      ProviderReference: reference,
      transactionID: expect.any(String),
      customerID: null,
    });
    // What the event carries is enough to finish it: the id in place of the token the event leaves out.
    const complete = (body: Record<string, unknown>) =>
      story.account.request('PUT', '/v1/widgets/capturepaymethod/complete', { body });
    const neither = await complete({ customerID: s.customerId });
    expect(neither.status, neither.text).toBe(422);
    expect(neither.body.fields.map((f: any) => f.field)).toEqual(['SessionToken', 'iframeCapturePayID']);
    const done = await complete({ customerID: s.customerId, iframeCapturePayID: captured.resource.id });
    expect(done.status, done.text).toBe(204);
    await paidOnce(s);
    const completed = await ok(
      story.account,
      'GET',
      '/v1/events?type=capture_session.completed&page_size=100',
    );
    expect(
      completed.find((e: any) => e.resource.id === session.iframeCapturePayID).data.object,
    ).toMatchObject({
      customerID: s.customerId,
      paymentID: expect.any(Number),
      Purpose: 'pay_invoice',
    });
  });

  /** A customer signed in to the portal, by a contact with a login. */
  async function inPortal(s: { customerId: number }) {
    const account = await ok(story.account, 'GET', '/v1/account');
    if (!account.PortalURL) {
      await ok(story.account, 'PUT', '/v1/account', { PortalSlug: `popup-${process.pid}` });
    }
    const username = `popup${s.customerId}-${process.pid}`;
    await ok(story.account, 'POST', '/v1/customercontacts', {
      customerID: s.customerId,
      Name: 'Thandi',
      LastName: 'Nkosi',
      Email: `contact${s.customerId}@example.co.za`,
      Username: username,
      Password: 'secret123',
    });
    const base = new URL((await ok(story.account, 'GET', '/v1/account')).PortalURL).pathname;
    const client = new PortalClient(base, story.t.url);
    expect((await client.signIn(username, 'secret123')).status).toBe(303);
    return client;
  }

  it('holds the portal’s Pay button while the pay page’s popup waits: the primary card is not charged', async () => {
    const s = await invoiceToPay();
    // The customer's primary card, saved in Paystack's checkout (verified by a charge Paystack refunds).
    const saving = await story.session();
    const setup = await story.frame(saving.HashToken, 'start', { email: s.email });
    sim.checkout(setup.body.confirm.accessCode, { card });
    expect((await story.frame(saving.HashToken, 'complete')).status).toBe(200);
    await story.complete(s.customerId, saving.SessionToken);
    const client = await inPortal(s);
    const form = await invoicePayForm(client, s.invoiceId);

    const started = await story.frame(await s.cardFrame(), 'start');
    expect(started.status, started.text).toBe(200);
    const charges = sim.requests.filter((r) => r.path === '/transaction/charge_authorization').length;
    const pay = await client.post(`${client.base}invoices/${s.invoiceId}/pay`, form);
    expect(pay.status).toBe(409);
    expect(pay.text).toContain('A payment is already being made');
    expect(sim.requests.filter((r) => r.path === '/transaction/charge_authorization')).toHaveLength(charges);

    const { reference } = sim.checkout(started.body.confirm.accessCode, { card });
    expect(await story.webhook(sim.settleCharge(reference))).toMatchObject({ body: { applied: 1 } });
    await paidOnce(s);
  });

  it('credits a portal top-up paid in the popup once, by the webhook, when the browser never comes back', async () => {
    // A customer owing nothing, so that the credit bought stays in the wallet.
    customers += 1;
    const customer = await ok(story.account, 'POST', '/v1/customers', {
      Name: `Buyer ${customers}`,
      Email: `buyer${customers}@example.co.za`,
      PaymentMethod: 'credit_card',
    });
    const s = { customerId: customer.customerID as number };
    const wallet = await ok(story.account, 'POST', `/v1/customers/${s.customerId}/wallets`, {
      CurrencyCode: 'ZAR',
    });
    const client = await inPortal(s);
    const buyPath = `${client.base}credit/${wallet.walletID}/buy`;
    const walletPage = await client.get(`${client.base}credit/${wallet.walletID}`);
    const bought = await client.post(buyPath, { ...hiddenFieldsOf(walletPage.text, buyPath), amount: '150' });
    expect(bought.status, bought.text).toBe(303);
    // No card yet: the top-up's invoice is paid with a new card, in Paystack's popup.
    const payCard = await client.get(bought.headers.get('location')!);
    expect(payCard.status, payCard.text).toBe(200);
    const hashToken = /data-hash-token="([^"]+)"/.exec(payCard.text)![1]!;
    const reference = await paidInPopup(hashToken);
    // The page never posts; Paystack's webhook records the sale, and a second delivery changes nothing.
    expect(await story.webhook(sim.settleCharge(reference))).toMatchObject({ body: { applied: 1 } });
    expect(await story.webhook(sim.settleCharge(reference))).toMatchObject({ body: { applied: 0 } });
    // The customer's one invoice: the top-up's.
    const [topUp] = await ok(story.account, 'GET', `/v1/customers/${s.customerId}/invoices`);
    expect(topUp).toMatchObject({ Status: 'Paid', Total: 150, Balance: 0 });
    expect((await story.payments(s.customerId)).filter((p: any) => p.Ref === reference)).toEqual([
      expect.objectContaining({ Amount: 150, Status: 'Allocated' }),
    ]);
    expect((await ok(story.account, 'GET', `/v1/wallets/${wallet.walletID}`)).Balance).toBe(150);
    // Its events say what it was for: credit bought through the top-up's invoice.
    const events = await ok(story.account, 'GET', '/v1/events?type=capture_session.completed&page_size=100');
    expect(events.find((e: any) => e.data.object.ProviderReference === reference).data.object).toMatchObject({
      Purpose: 'buy_credit',
      invoiceID: topUp.invoiceID,
      customerID: s.customerId,
    });
  });

  it('sent Paystack only requests its OpenAPI document allows', () => {
    expect(sim.problems).toEqual([]);
  });
});
