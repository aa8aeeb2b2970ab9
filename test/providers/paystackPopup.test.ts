import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { billAccount } from '../../src/billing/billRun.ts';
import { signPayLinkToken } from '../../src/modules/collections/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { startSmtpReceiver } from '../helpers/smtp.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';
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
  const token = signPayLinkToken(story.t.service.secrets, {
    accountId: story.account.accountId,
    invoiceId: invoice.invoiceID,
    expiresAt: new Date(Math.floor(Date.now() / 1000 + 86_400) * 1000).toISOString(),
  });
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

  it('sent Paystack only requests its OpenAPI document allows', () => {
    expect(sim.problems).toEqual([]);
  });
});
