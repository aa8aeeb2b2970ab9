import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { fixedClock } from '../../src/clock.ts';
import { ok } from '../helpers/billing.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { issuedInvoice, payLinkToken } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { PAYSTACK_TEST_CARDS, PAYSTACK_TEST_OTP, PaystackSimulator } from './paystackSimulator.ts';
import {
  answerCheckout,
  PAYSTACK_CHECKOUT,
  PAYSTACK_INLINE_STAND_IN,
  PAYSTACK_INLINE_URL,
} from './standIns/paystackInline.ts';
import { advanceClock, plusDays } from '../helpers/clock.ts';
import { accountOnProvider, providerSession } from './providerAccount.ts';

/**
 * The page that pays one invoice (docs/hosted-pages.md, "Paying one invoice") on a Paystack account, in Chromium,
 * after a renewal Paystack paused for the cardholder (`authentication_required`). Paystack cannot confirm a stored
 * authorization on session (docs/spec-decisions.md, "Confirming a stored card with a provider"), so "Confirm
 * payment" opens Paystack's checkout on a transaction of what the invoice owes, where Paystack asks the bank (the
 * OTP of its test card); the service then verifies the transaction with Paystack and records the payment once.
 * InlineJS is the stand-in of test/providers/standIns/, api.paystack.co the simulator.
 */

const KEYS = { secretKey: 'sk_test_7e2b4c9a1d', publicKey: 'pk_test_7e2b4c9a1d' };
const { pinAndOtp } = PAYSTACK_TEST_CARDS;

let sim: PaystackSimulator;
let browser: Browser;
let account: TestAccount;
let gatewayId: number;
let gatewayToken: string;

beforeAll(async () => {
  sim = await PaystackSimulator.start(KEYS.secretKey, fixedClock('2026-11-26T10:00:00.000Z'));
});
// Options read once the hook above has started the simulator.
const t = useTestService(() => ({
  providerFetch: sim.fetch,
  seed: async () => {
    ({ account, gatewayId, gatewayToken } = await accountOnProvider(t, sim.fetch, {
      name: 'Lagos Roasters',
      currencyCode: 'ZAR',
      gateway: { type: 'paystack', friendlyName: 'Paystack', settings: KEYS },
    }));
  },
}));
// Chromium apart: each start has its own time on a loaded machine.
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/**
 * A customer charged by card whose card (Paystack's PIN-and-OTP test card) was saved through the capture frame's
 * provider steps, and an invoice of 114.80 collected from it today, which Paystack paused for the cardholder.
 */
async function pausedRenewal() {
  const advance = (to: string) => advanceClock(account, to);
  const today = plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1);
  await advance(`${today}T00:00:00.000Z`);
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: 'Cleo',
    Email: 'cleo@example.co.za',
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: gatewayId,
  });
  const customerId = customer.customerID as number;
  const session = await providerSession(account, gatewayToken, 'ZAR');
  const frame = (step: 'start' | 'complete', body = {}) =>
    t.request('POST', `/widget/capture/${session.HashToken}/provider/${step}`, { auth: false, body });
  const started = await frame('start', { email: 'cleo@example.co.za' });
  expect(started.status, started.text).toBe(200);
  const accessCode = started.body.confirm.accessCode as string;
  if (sim.payWithCard(accessCode, { ...pinAndOtp, expiryMonth: 12, expiryYear: 2034 }) === 'send_otp') {
    sim.submitOtp(accessCode, PAYSTACK_TEST_OTP);
  }
  expect((await frame('complete')).status).toBe(200);
  await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
    body: { customerID: customerId, SessionToken: session.SessionToken },
  });
  const kept = await ok(account, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
  const invoice = await issuedInvoice(account, {
    customerId,
    invoiceDate: today,
    dueDate: today,
    amount: 114.8,
    collect: { method: 'credit_card', gatewayId, paymentMethodId: kept.paymentMethodID as number },
  });
  await advance(`${today}T12:00:00.000Z`);
  const [paused] = (await ok(account, 'GET', `/v1/customers/${customerId}/payments`)) as any[];
  expect(paused).toMatchObject({ FailureReason: 'authentication_required' });
  const token = payLinkToken(t, account.accountId, invoice.invoiceID);
  return { customerId, invoiceId: invoice.invoiceID as number, link: `${t.url}/pay/${token}` };
}

describe('"Confirm payment" on a Paystack account', () => {
  it("opens Paystack's checkout for what the invoice owes, and records the payment once", async () => {
    const s = await pausedRenewal();
    const context = await browser.newContext({ viewport: { width: 800, height: 1000 } });
    await context.route(PAYSTACK_INLINE_URL, (route) =>
      route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: PAYSTACK_INLINE_STAND_IN }),
    );
    await context.route(`${PAYSTACK_CHECKOUT}**`, answerCheckout(sim));
    const page = await context.newPage();
    const policyRefusals: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) policyRefusals.push(message.text());
    });
    await page.goto(s.link);
    await page.getByRole('button', { name: 'Confirm payment' }).click();

    // Paystack's checkout over the page, on a transaction the service initialised for the invoice's balance.
    const checkoutWindow = page.getByRole('dialog', { name: 'Pay with Paystack' });
    await checkoutWindow.getByLabel('Card number').fill(pinAndOtp.number);
    await checkoutWindow.getByLabel('Card expiry').fill('12 / 30');
    await checkoutWindow.getByLabel('CVV').fill(pinAndOtp.cvv);
    await checkoutWindow.getByRole('button', { name: 'Pay' }).click();
    await expect
      .poll(() => checkoutWindow.getByRole('alert').innerText())
      .toBe('Kindly enter the OTP sent to your phone');
    await checkoutWindow.getByLabel('OTP').fill(PAYSTACK_TEST_OTP);
    await checkoutWindow.getByRole('button', { name: 'Pay' }).click();
    await page.getByText('Thank you: there is nothing more to do.').waitFor();
    expect(policyRefusals).toEqual([]);
    await context.close();

    const initialized = sim.requests.filter(
      (r) => r.path === '/transaction/initialize' && r.body?.amount === 11480,
    );
    expect(initialized).toHaveLength(1);
    expect(initialized[0]!.body).toMatchObject({
      email: 'cleo@example.co.za',
      currency: 'ZAR',
      channels: ['card'],
    });
    const reference = String(initialized[0]!.body!.reference);
    expect(await ok(account, 'GET', `/v1/invoices/${s.invoiceId}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
      NextTryDate: null,
    });
    const payments = (await ok(account, 'GET', `/v1/customers/${s.customerId}/payments`)) as any[];
    expect(payments.filter((p) => p.Status === 'Allocated')).toEqual([
      expect.objectContaining({ Amount: 114.8, Method: 'credit_card', Ref: reference }),
    ]);
    // Opened again, the page shows the invoice paid, and offers nothing to press.
    const html = await (await fetch(s.link)).text();
    expect(html).toContain('Thank you: there is nothing more to do.');
    expect(sim.problems).toEqual([]);
  });
});
