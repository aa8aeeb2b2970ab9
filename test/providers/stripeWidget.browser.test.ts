import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FrameLocator, Page } from 'playwright-core';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  SCREENSHOTS,
  browser,
  events,
  merchantOrigin,
  serve,
  told,
  useMerchantAndBrowser,
} from '../widgets/browserFixtures.ts';
import { t, useWidgetService } from '../widgets/fixtures.ts';
import { accountOnProvider, providerSession } from './providerAccount.ts';
import { routeStripeToSimulator } from './stripeBrowser.ts';
import { StripeSimulator } from './stripeSimulator.ts';

/**
 * The capture frame on a Stripe gateway in Chromium (docs/hosted-pages.md, "With a real provider"): the frame loads
 * Stripe.js and shows its Payment Element; the card goes from the browser to Stripe, never to us. Stripe.js is a
 * stand-in (test/providers/standIns/stripeJs.ts: the real script cannot be loaded without the internet) served by a
 * Playwright route; its calls to api.stripe.com are routed to the Stripe simulator, which checks each against
 * Stripe's OpenAPI document, and the service reaches the same simulator through its provider fetch.
 */

let sim: StripeSimulator;
beforeAll(async () => {
  sim = await StripeSimulator.start();
});
useWidgetService({ providerFetch: (input, init) => sim.fetch(input, init) });
useMerchantAndBrowser('stripe-widget-screens');

const VISA = '4242424242424242';
const DECLINED = '4000000000000002';
const ALWAYS_AUTHENTICATE = '4000002760003184';

/** Stripe's origins in the frame's policy (src/modules/gateways/stripe/stripeCardSetup.ts, ORIGINS). */
const STRIPE_ORIGINS =
  'https://js.stripe.com https://*.js.stripe.com https://api.stripe.com https://hooks.stripe.com';

let account: TestAccount;
let gatewayId: number;
let gatewayToken: string;
/** What the browser asked of Stripe (`METHOD /path`), and every request body it sent our service. */
const stripeCalls: string[] = [];
const sentToUs: string[] = [];
const policyRefusals: string[] = [];

beforeAll(async () => {
  ({ account, gatewayId, gatewayToken } = await accountOnProvider(t, sim.fetch, {
    name: 'Coffee by post',
    currencyCode: 'USD',
    gateway: { type: 'stripe', friendlyName: 'Stripe', settings: sim.gatewaySettings },
  }));
  await routeStripeToSimulator(browser, sim, (call) => stripeCalls.push(call));
  browser.on('request', (request) => {
    if (request.url().startsWith(t.url)) sentToUs.push(`${request.url()} ${request.postData() ?? ''}`);
  });
});

async function newCustomer(name: string): Promise<number> {
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: name,
    Email: `${name.toLowerCase()}@example.com`,
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: gatewayId,
  });
  return customer.customerID as number;
}

/** The merchant's checkout with a session on the Stripe gateway, and the frame's Content-Security-Policy. */
async function open(name: string, body: Record<string, unknown>) {
  const session = await providerSession(account, gatewayToken, 'USD', {
    AuthDomain: merchantOrigin(),
    ...body,
  });
  const page = await browser.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) policyRefusals.push(message.text());
  });
  const frameDocument = page.waitForResponse(
    (response) =>
      response.url().startsWith(`${t.url}/widget/capture/`) &&
      response.request().resourceType() === 'document',
  );
  await page.goto(`${merchantOrigin()}${serve(name, session.Html)}`);
  const csp = (await (await frameDocument).allHeaders())['content-security-policy']!;
  const frame = page.frameLocator('iframe[title="Payment details"]');
  return { page, frame, session, csp };
}

async function fillCard(frame: FrameLocator, number: string): Promise<void> {
  await frame.getByLabel('Card number').fill(number);
  await frame.getByLabel('Expiration date').fill('12 / 34');
  await frame.getByLabel('Security code').fill('123');
}

const statusOf = (frame: FrameLocator) => frame.getByRole('status').innerText();

/** Whether the frame's document is taller than the frame the merchant's page gives it (a part cut off). */
const overflows = (frame: FrameLocator) =>
  frame.locator('html').evaluate((html) => html.scrollHeight > html.clientHeight);

/** Waits for the frame's answer to a submit, completed or failed, and answers what its status line says. */
async function settled(page: Page, frame: FrameLocator): Promise<string> {
  await page.waitForFunction(() =>
    (globalThis as unknown as { widgetEvents: { type: string }[] }).widgetEvents.some(
      (e) => e.type === 'capture.completed' || e.type === 'capture.failed',
    ),
  );
  return statusOf(frame);
}

async function screenshotOfFrame(page: Page, name: string): Promise<void> {
  const file = path.join(SCREENSHOTS, name);
  await page.locator('iframe[title="Payment details"]').screenshot({ path: file });
  expect(fs.statSync(file).size).toBeGreaterThan(0);
}

describe("the capture frame with Stripe's Payment Element", () => {
  it('saves a card after a decline, shows Stripe’s message, and the card becomes the customer’s method', async () => {
    const customerId = await newCustomer('Ada');
    const { page, frame, session, csp } = await open('stripe-save', {});

    // The frame's policy adds Stripe's origins, and nothing else, to the frame's own.
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(csp).toBe(
      [
        "default-src 'none'",
        `script-src 'nonce-${nonce}' ${STRIPE_ORIGINS}`,
        `style-src 'nonce-${nonce}'`,
        `connect-src 'self' ${STRIPE_ORIGINS}`,
        `frame-src ${STRIPE_ORIGINS}`,
        `img-src 'self' ${STRIPE_ORIGINS}`,
        "form-action 'none'",
        "base-uri 'none'",
        `frame-ancestors ${merchantOrigin()}`,
      ].join('; '),
    );

    // The stand-in Payment Element, mounted by the frame's adapter.
    await frame.getByLabel('Card number').waitFor();
    expect(await frame.locator('[data-stand-in="Stripe Payment Element"]').count()).toBe(1);
    await expect.poll(() => overflows(frame)).toBe(false);
    await screenshotOfFrame(page, 'payment-element.png');

    // Incomplete fields: elements.submit() answers Stripe's message, and nothing is started.
    await frame.getByRole('button', { name: 'Save card' }).click();
    await told(page, 'capture.failed');
    expect(await statusOf(frame)).toBe('Your card number is incomplete.');
    expect(stripeCalls).toEqual([]);

    await fillCard(frame, DECLINED);
    await frame.getByRole('button', { name: 'Save card' }).click();
    await told(page, 'capture.failed', 2);
    // Stripe refused it in the browser; the frame asks our server to complete, which asks Stripe and counts the
    // attempt, as a card refused in our own fields is counted.
    await expect.poll(() => statusOf(frame)).toBe('Your card was declined. (4 attempts left)');
    expect((await events(page)).filter((e) => e.type === 'capture.failed').map((e) => e.detail)).toEqual([
      { reason: 'provider' },
      { reason: 'refused', attemptsLeft: 4 },
    ]);

    await frame.getByLabel('Card number').fill(VISA);
    await frame.getByRole('button', { name: 'Save card' }).click();
    await told(page, 'capture.completed');
    await expect.poll(() => statusOf(frame)).toMatch(/^Card saved: Visa ending in 4242\.$/);
    const completed = (await events(page)).find((e) => e.type === 'capture.completed')!.detail;
    expect(completed).toMatchObject({ type: 'card', brand: 'Visa', last4: '4242', charged: false });
    // Each try confirms a SetupIntent the service started, after checking it matches the Element: the declined
    // try's intent counted as a failed attempt, and the next submit started a new one.
    const [declined, saved] = [...sim.intents.values()]
      .filter((each) => each.kind === 'setup')
      .map((i) => i.id);
    expect(stripeCalls).toEqual([
      `GET /v1/setup_intents/${declined}`,
      'POST /v1/payment_methods',
      `POST /v1/setup_intents/${declined}/confirm`,
      `GET /v1/setup_intents/${saved}`,
      'POST /v1/payment_methods',
      `POST /v1/setup_intents/${saved}/confirm`,
    ]);

    const done = await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
      body: { customerID: customerId, SessionToken: session.SessionToken },
    });
    expect(done.status, done.text).toBeLessThan(300);
    const read = await ok(account, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(read.State).toBe('completed');
    const method = await ok(account, 'GET', `/v1/paymentmethods/${read.paymentMethodID}`);
    expect(method).toMatchObject({ customerID: customerId });
    expect(JSON.stringify(method)).toContain('4242');
    await page.close();
  });

  it('pays an invoice with a card whose bank asks for 3-D Secure, once the customer completes it', async () => {
    const customerId = await newCustomer('Bea');
    const invoice = await issuedInvoice(account, { customerId, amount: 30, description: 'Beans, March' });
    const { page, frame, session } = await open('stripe-sale', {
      VaultingType: 'None',
      SaleType: 'Sale',
      Amount: 30,
      invoiceID: invoice.invoiceID,
    });
    await fillCard(frame, ALWAYS_AUTHENTICATE);
    await frame.getByRole('button', { name: 'Pay 30.00 USD' }).click();

    // Stripe's test authentication page, as Stripe.js shows it for a confirmation that `requires_action`.
    const complete = frame.getByRole('button', { name: 'Complete authentication' });
    await complete.waitFor();
    // The frame grows to show the page the provider's script added, as it does for its own challenge.
    await expect.poll(() => overflows(frame)).toBe(false);
    const intentId = [...sim.intents.values()].findLast((intent) => intent.kind === 'payment')!.id;
    expect(sim.intents.get(intentId)).toMatchObject({ status: 'requires_action', amount: 3000 });
    await screenshotOfFrame(page, 'authentication.png');
    await complete.click();
    expect(await settled(page, frame)).toBe('Payment made: Visa ending in 3184.');
    expect((await events(page)).find((e) => e.type === 'capture.completed')!.detail).toMatchObject({
      last4: '3184',
      charged: true,
    });
    expect(sim.intents.get(intentId)?.status).toBe('succeeded');

    const done = await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
      body: { customerID: customerId, SessionToken: session.SessionToken },
    });
    expect(done.status, done.text).toBeLessThan(300);
    expect(await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
    await page.close();
  });

  it('keeps and charges a card at once, its Element set up for later charges as the intent is', async () => {
    const customerId = await newCustomer('Cleo');
    const { page, frame, session } = await open('stripe-vault-sale', {
      SaleType: 'VaultSale',
      Amount: 12.5,
      Description: 'Gift box',
    });
    await fillCard(frame, VISA);
    await frame.getByRole('button', { name: 'Pay 12.50 USD' }).click();
    expect(await settled(page, frame)).toBe('Payment made: Visa ending in 4242.');
    expect((await events(page)).find((e) => e.type === 'capture.completed')!.detail).toMatchObject({
      last4: '4242',
      charged: true,
    });
    const intent = [...sim.intents.values()].findLast((each) => each.kind === 'payment')!;
    expect(intent).toMatchObject({ status: 'succeeded', amount: 1250, setupFutureUsage: 'off_session' });

    const done = await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
      body: { customerID: customerId, SessionToken: session.SessionToken },
    });
    expect(done.status, done.text).toBeLessThan(300);
    const read = await ok(account, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(await ok(account, 'GET', `/v1/paymentmethods/${read.paymentMethodID}`)).toMatchObject({
      customerID: customerId,
    });
    await page.close();
  });

  it('sent Stripe only requests its document allows, and the card number never reached the service', async () => {
    expect(sim.refused).toEqual([]);
    expect(sim.answerProblems).toEqual([]);
    expect(policyRefusals).toEqual([]);
    const calls = await t.service.storage.db.selectFrom('gateway_calls').selectAll().execute();
    const recorded =
      JSON.stringify(calls) +
      t.logs.join('') +
      JSON.stringify(await ok(account, 'GET', '/v1/events')) +
      sentToUs.join('\n');
    expect(sentToUs.length).toBeGreaterThan(0);
    for (const number of [VISA, DECLINED, ALWAYS_AUTHENTICATE]) expect(recorded).not.toContain(number);
  });
});
