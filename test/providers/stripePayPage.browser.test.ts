import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext } from 'playwright-core';
import { ok } from '../helpers/billing.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { issuedInvoice, payLinkToken } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';
import { accountOnProvider } from './providerAccount.ts';
import { routeStripeToSimulator } from './stripeBrowser.ts';
import { StripeSimulator } from './stripeSimulator.ts';
import { storedCardSetup } from './stripePayPage.fixtures.ts';
import type { StoredCardSetup } from './stripePayPage.fixtures.ts';

/**
 * The page that pays one invoice (docs/hosted-pages.md, "Paying one invoice") on an account whose primary gateway is
 * Stripe, in Chromium: "Pay with a card" is the capture frame with Stripe's Payment Element, whose 3-D Secure page
 * the customer passes, and the page records the payment; "Confirm payment" charges the stored card whose renewal the
 * bank wanted confirmed, on session, with Stripe.js's handleNextAction running the challenge in the page. Stripe.js
 * is the stand-in of test/providers/standIns/ and api.stripe.com the simulator, as in stripeWidget.browser.test.ts.
 */

let sim: StripeSimulator;
let browser: Browser;
let context: BrowserContext;
let account: TestAccount;
let gatewayId: number;
let screenshots: string;

beforeAll(async () => {
  sim = await StripeSimulator.start();
  // Webhook signatures are compared with the service's wall clock: the simulator signs at the same time.
  sim.nowSeconds = Math.floor(Date.now() / 1000);
});
// Options read once the hook above has started the simulator.
const t = useTestService(() => ({
  providerFetch: sim.fetch,
  smtp: true,
  seed: async () => {
    ({ account, gatewayId } = await accountOnProvider(t, sim.fetch, {
      name: 'Coffee by post',
      currencyCode: 'USD',
      gateway: { type: 'stripe', friendlyName: 'Stripe', settings: sim.gatewaySettings },
    }));
  },
}));
const { smtp } = t;
// Chromium apart: each start has its own time on a loaded machine.
beforeAll(async () => {
  screenshots = fs.mkdtempSync(path.join(os.tmpdir(), 'stripe-pay-page-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  context = await browser.newContext({ viewport: { width: 800, height: 1100 } });
  await routeStripeToSimulator(context, sim);
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the pay page on a Stripe account', () => {
  it('pays the invoice with a card that Stripe authenticates, and shows it paid', async () => {
    const customer = await ok(account, 'POST', '/v1/customers', {
      Name: 'Ada',
      Email: 'ada@example.com',
      PrimaryGatewayID: gatewayId,
    });
    const customerId = customer.customerID as number;
    const invoice = await issuedInvoice(account, { customerId, amount: 30 });
    const token = payLinkToken(t, account.accountId, invoice.invoiceID);

    const page = await context.newPage();
    await page.goto(`${t.url}/pay/${token}`);
    // Nothing to confirm (no collection asked for the cardholder): a card, in Stripe's fields.
    expect(await page.getByRole('button', { name: 'Confirm payment' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Pay with a card' }).count()).toBe(1);
    const frame = page.frameLocator('iframe[title="Payment details"]');
    // docs/gateways.md, "The test gateway's cards": Stripe's test card that always asks for authentication.
    await frame.getByLabel('Card number').fill('4000002760003184');
    await frame.getByLabel('Expiration date').fill('12 / 34');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByRole('button', { name: 'Pay 30.00 USD' }).click();
    const complete = frame.getByRole('button', { name: 'Complete authentication' });
    await complete.waitFor();
    await page.screenshot({ path: path.join(screenshots, 'stripe-authentication.png'), fullPage: true });
    await complete.click();
    await page.getByText('Thank you: there is nothing more to do.').waitFor();
    await page.close();

    expect(await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
    const payments = (await ok(account, 'GET', `/v1/customers/${customerId}/payments`)) as any[];
    expect(payments).toEqual([
      expect.objectContaining({ Amount: 30, Method: 'credit_card', Status: 'Allocated' }),
    ]);
    const intent = [...sim.intents.values()].findLast((i) => i.kind === 'payment')!;
    expect(intent).toMatchObject({ status: 'succeeded', amount: 3000 });
    expect(payments[0].Ref).toBe(intent.id);
    const methods = (await ok(account, 'GET', `/v1/customers/${customerId}/paymentmethods`)) as any[];
    expect(methods.filter((m) => m.isPrimary)).toHaveLength(1);
  });
});

/** Stripe's webhook of the last event of `type`, posted to the gateway's URL as Stripe signs it. */
async function webhook(s: StoredCardSetup, type: string) {
  const { headers, rawBody } = await sim.delivery(type);
  const answer = await fetch(`${t.url}/gateway-webhooks/${s.gatewayToken}`, {
    method: 'POST',
    headers,
    body: rawBody,
  });
  return { status: answer.status, body: (await answer.json()) as any };
}

const allocated = async (s: StoredCardSetup) =>
  ((await ok(s.account, 'GET', `/v1/customers/${s.customerId}/payments`)) as any[]).filter(
    (p) => p.Status === 'Allocated',
  );
/** The PaymentIntents the pay page's confirm sessions made for the setup's customer (keys of capture sessions). */
const confirmIntents = (s: StoredCardSetup) =>
  [...sim.intents.values()].filter(
    (i) =>
      i.kind === 'payment' &&
      i.customer === s.stripeCustomer &&
      i.metadata.billing_key?.startsWith('capture-session:'),
  );
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('"Confirm payment" with the stored card on a Stripe account', () => {
  const setup = () => storedCardSetup(t, sim);

  it('charges the stored card on session, the challenge passed in the page: Paid once, with a receipt', async () => {
    const s = await setup();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        errors.push(message.text());
      }
    });
    await page.goto(s.link);
    expect(await page.getByRole('heading', { name: 'Pay with another card' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    const complete = page.getByRole('button', { name: 'Complete authentication' });
    await complete.waitFor();
    // Nothing is taken while the bank waits on the cardholder.
    expect(confirmIntents(s).map((i) => i.status)).toEqual(['requires_action']);
    expect(await allocated(s)).toEqual([]);
    await page.screenshot({ path: path.join(screenshots, 'stripe-confirm-challenge.png'), fullPage: true });
    await complete.click();
    await page.getByText('Thank you: there is nothing more to do.').waitFor();
    expect(errors).toEqual([]);
    await page.close();

    const [intent, ...more] = confirmIntents(s);
    expect(more).toEqual([]);
    // On session, for the stored card's Stripe Customer and PaymentMethod: no card was entered anywhere.
    expect(intent).toMatchObject({
      status: 'succeeded',
      customer: s.stripeCustomer,
      paymentMethod: s.stripeCard,
    });
    expect(await ok(s.account, 'GET', `/v1/invoices/${s.invoiceId}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
      NextTryDate: null,
    });
    const paid = await allocated(s);
    expect(paid).toEqual([expect.objectContaining({ Amount: 30, Method: 'credit_card', Ref: intent!.id })]);
    // Stripe's webhook on the same charge records nothing more.
    expect(await webhook(s, 'payment_intent.succeeded')).toMatchObject({ status: 200, body: { applied: 0 } });
    expect(await allocated(s)).toHaveLength(1);
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.map((mail) => mail.subject)).toEqual([
      expect.stringMatching(/^Please confirm your payment of invoice /),
      'Receipt from Coffee by post: USD 30.00 received',
    ]);
    expect(mails[1]!.text).toContain('Visa ending 3184');
    expect(sim.refused).toEqual([]);
    expect(sim.answerProblems).toEqual([]);
  });

  it('records nothing when the challenge fails, says so, and takes another try or another card', async () => {
    const s = await setup();
    const page = await context.newPage();
    await page.goto(s.link);
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByRole('button', { name: 'Fail authentication' }).click();
    await page
      .getByText(
        'Your bank did not confirm the payment. Nothing was charged: try again, or pay with another card.',
      )
      .waitFor();
    await page.screenshot({ path: path.join(screenshots, 'stripe-confirm-failed.png'), fullPage: true });
    expect(confirmIntents(s).map((i) => i.status)).toEqual(['requires_payment_method']);
    expect(await allocated(s)).toEqual([]);
    expect(await ok(s.account, 'GET', `/v1/invoices/${s.invoiceId}`)).toMatchObject({
      Status: 'Due',
      Balance: 30,
    });
    expect(await page.getByRole('heading', { name: 'Pay with another card' }).count()).toBe(1);
    expect(await page.locator('iframe[title="Payment details"]').count()).toBe(1);

    // Pressed again, a new attempt is a new PaymentIntent; passed this time, the invoice is paid by it alone.
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await page.getByText('Thank you: there is nothing more to do.').waitFor();
    await page.close();
    const statuses = confirmIntents(s).map((i) => i.status);
    expect(statuses).toEqual(['requires_payment_method', 'succeeded']);
    expect(await allocated(s)).toEqual([
      expect.objectContaining({ Amount: 30, Ref: confirmIntents(s)[1]!.id }),
    ]);
  });

  it('records once when Confirm and complete are each sent twice at once, the webhook arriving between', async () => {
    const s = await setup();
    const html = await (await fetch(s.link)).text();
    const session = /id="confirm"[^>]*data-session="([0-9a-f]{64})"/.exec(html)![1]!;
    const confirms = await Promise.all([
      post(`${s.link}/confirm`, { session }),
      post(`${s.link}/confirm`, { session }),
    ]);
    const answers = await Promise.all(
      confirms.map(async (r) => ({ status: r.status, body: (await r.json()) as any })),
    );
    expect(
      answers.every((a) => a.status === 200 || a.status === 409),
      JSON.stringify(answers),
    ).toBe(true);
    const actions = answers.filter((a) => a.status === 200).map((a) => a.body.action);
    expect(actions.length).toBeGreaterThan(0);
    // One intent however often it is pressed: a second press answers the first one's action.
    expect(new Set(actions.map((a) => a.clientSecret)).size).toBe(1);
    expect(actions[0]).toMatchObject({ provider: 'stripe', nextAction: 'handle' });
    const [intent, ...more] = confirmIntents(s);
    expect(more).toEqual([]);
    // Again once the first has answered: the same action, no new intent.
    const again = await post(`${s.link}/confirm`, { session });
    expect(((await again.json()) as any).action?.clientSecret).toBe(actions[0].clientSecret);
    expect(confirmIntents(s)).toHaveLength(1);

    // The customer passes the challenge (as the page's Stripe.js would), and Stripe's webhook comes first: it
    // records the payment (docs/hosted-pages.md, "When the browser never comes back"); the page's posts add none.
    sim.authenticate(intent!.id);
    expect(await webhook(s, 'payment_intent.succeeded')).toMatchObject({ status: 200, body: { applied: 1 } });
    expect(await allocated(s)).toEqual([expect.objectContaining({ Amount: 30, Ref: intent!.id })]);
    const completes = await Promise.all([
      post(`${s.link}/complete`, { session, way: 'confirm' }),
      post(`${s.link}/complete`, { session, way: 'confirm' }),
    ]);
    expect(completes.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect(completes.some((r) => r.status === 200)).toBe(true);
    const last = await post(`${s.link}/complete`, { session, way: 'confirm' });
    expect(await last.json()).toEqual({ paid: true });
    expect(await webhook(s, 'payment_intent.succeeded')).toMatchObject({ status: 200, body: { applied: 0 } });

    expect(await allocated(s)).toEqual([expect.objectContaining({ Amount: 30, Ref: intent!.id })]);
    expect(await ok(s.account, 'GET', `/v1/invoices/${s.invoiceId}`)).toMatchObject({ Status: 'Paid' });
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.filter((mail) => mail.subject.startsWith('Receipt from'))).toHaveLength(1);
    expect(await (await fetch(s.link)).text()).toContain('Thank you: there is nothing more to do.');
    expect(sim.refused).toEqual([]);
  });

  it('records a challenge passed in a tab that closed before it came back, when the page is opened again', async () => {
    const s = await setup();
    const html = await (await fetch(s.link)).text();
    const session = /id="confirm"[^>]*data-session="([0-9a-f]{64})"/.exec(html)![1]!;
    const confirmed = await post(`${s.link}/confirm`, { session });
    expect(confirmed.status).toBe(200);
    const [intent] = confirmIntents(s);
    sim.authenticate(intent!.id);
    expect(await allocated(s)).toEqual([]);

    expect(await (await fetch(s.link)).text()).toContain('Thank you: there is nothing more to do.');
    expect(await allocated(s)).toEqual([expect.objectContaining({ Amount: 30, Ref: intent!.id })]);
    expect(await (await fetch(s.link)).text()).toContain('Thank you: there is nothing more to do.');
    expect(await allocated(s)).toHaveLength(1);
  });
});
