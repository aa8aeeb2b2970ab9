import { beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { newPage, shot, signIn, useBrowser } from '../portal/browser.ts';
import { customerWithLogin, portalPath } from '../portal/fixtures.ts';
import { PAYSTACK_TEST_CARDS, PAYSTACK_TEST_OTP, PaystackSimulator } from './paystackSimulator.ts';
import {
  answerCheckout,
  PAYSTACK_CHECKOUT,
  PAYSTACK_INLINE_STAND_IN,
  PAYSTACK_INLINE_URL,
} from './standIns/paystackInline.ts';
import { accountOnProvider } from './providerAccount.ts';

/**
 * Adding a card in the customer portal (docs/portal.md, "Paying and payment methods") when the account's primary gateway is
 * Paystack, in Chromium: the capture frame loads Paystack's InlineJS and, on submit, opens Paystack's checkout on
 * the transaction the service initialised (docs/hosted-pages.md, "With a real provider"). InlineJS is a stand-in
 * (test/providers/standIns/paystackInline.ts: the real script cannot be loaded without the internet) served by a
 * Playwright route; its checkout's card is paid at the Paystack simulator, which the service asks how it went.
 */

const KEYS = { secretKey: 'sk_test_4f1c2a9b7d', publicKey: 'pk_test_4f1c2a9b7d' };
const CARD = PAYSTACK_TEST_CARDS.success;

let sim: PaystackSimulator;
let account: TestAccount;
/** Every request body the browser sent our service. */
const sentToUs: string[] = [];
/** What the browser's console said of the Content-Security-Policy: nothing, since only Paystack's origins are used. */
const policyRefusals: string[] = [];

useBrowser();

beforeAll(async () => {
  sim = await PaystackSimulator.start(KEYS.secretKey, fixedClock('2026-11-26T10:00:00.000Z'));
});
// Options read once the hook above has started the simulator.
const t = useTestService(() => ({
  providerFetch: sim.fetch,
  seed: async () => {
    ({ account } = await accountOnProvider(t, sim.fetch, {
      name: 'Lagos Roasters',
      currencyCode: 'USD',
      gateway: { type: 'paystack', friendlyName: 'Paystack', settings: KEYS },
    }));
    await ok(account, 'PUT', '/v1/account', { PortalSlug: `lagos-${process.pid}` });
  },
}));

/** A signed-in customer's browser on the portal's add-card page, with Paystack's InlineJS routed to the stand-in. */
async function addCardPage(name: string) {
  const login = await customerWithLogin(account, { name });
  const base = `${t.url}${await portalPath(account)}`;
  const { context, page } = await newPage();
  await context.route(PAYSTACK_INLINE_URL, (route) =>
    route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: PAYSTACK_INLINE_STAND_IN }),
  );
  await context.route(`${PAYSTACK_CHECKOUT}**`, answerCheckout(sim));
  context.on('request', (request) => {
    if (request.url().startsWith(t.url)) sentToUs.push(`${request.url()} ${request.postData() ?? ''}`);
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) policyRefusals.push(message.text());
  });
  await signIn(page, base, login.username, login.password);
  await expect.poll(() => page.locator('h1').innerText()).toContain(name);
  await page.goto(`${base}payment-methods/add`);
  const frame = page.frameLocator('iframe[title="Payment details"]');
  await frame.getByText('You enter your card in Paystack’s secure window when you continue.').waitFor();
  const checkoutWindow = frame.getByRole('dialog', { name: 'Pay with Paystack' });
  return { login, context, page, frame, checkoutWindow };
}

describe('adding a card in the portal on a Paystack account', () => {
  it("pays the verification in Paystack's checkout, and the portal lists the card", async () => {
    const { login, context, page, frame, checkoutWindow } = await addCardPage('Chioma');
    // The customer's e-mail is known: the frame does not ask for it.
    expect(await frame.getByLabel('E-mail address').count()).toBe(0);
    await frame.getByRole('button', { name: 'Save card' }).click();

    // The stand-in checkout, opened by resumeTransaction on the transaction the service initialised.
    await checkoutWindow.getByLabel('Card number').fill(CARD.number);
    await checkoutWindow.getByLabel('Card expiry').fill('12 / 30');
    await checkoutWindow.getByLabel('CVV').fill(CARD.cvv);
    await shot(page, 'paystack-checkout');
    await checkoutWindow.getByRole('button', { name: 'Pay' }).click();

    // The frame completes; the portal's page posts its form and completes the session on its server.
    await page.waitForURL(/payment-methods\?done=added$/);
    expect(await page.getByRole('status').first().innerText()).toContain('Your card was added.');
    const listed = await page.locator('.methods').innerText();
    expect(listed).toMatch(/visa/i);
    expect(listed).toContain('4081');
    await shot(page, 'paystack-payment-methods');

    const methods = await ok(account, 'GET', `/v1/customers/${login.customerId}/paymentmethods`);
    expect(methods).toHaveLength(1);
    expect(methods[0]).toMatchObject({ CreditCard: { LastFourDigits: '4081' } });
    // The transaction only verified the card: Paystack refunds it in full (docs/gateways/paystack.md).
    const [verification] = sim.requests.filter((r) => r.path === '/transaction/initialize');
    expect(verification!.body).toMatchObject({ amount: 200, currency: 'USD', channels: ['card'] });
    expect(sim.refundsOf(String(verification!.body!.reference))).toEqual([
      expect.objectContaining({ amount: 200 }),
    ]);

    await context.close();
  });

  it('opens the checkout again after it was closed, and takes a card after a decline and an OTP', async () => {
    const { login, context, page, frame, checkoutWindow } = await addCardPage('Dayo');
    await frame.getByRole('button', { name: 'Save card' }).click();
    await checkoutWindow.getByRole('button', { name: 'Cancel' }).click();
    await expect
      .poll(() => frame.getByRole('status').innerText())
      .toBe('The payment window was closed before the card was confirmed.');
    expect(await checkoutWindow.count()).toBe(0);

    // The same transaction is resumed: a second start answers the first one's access code.
    await frame.getByRole('button', { name: 'Save card' }).click();
    await checkoutWindow.getByLabel('Card number').fill(PAYSTACK_TEST_CARDS.declined.number);
    await checkoutWindow.getByLabel('Card expiry').fill('12 / 30');
    await checkoutWindow.getByLabel('CVV').fill(PAYSTACK_TEST_CARDS.declined.cvv);
    await checkoutWindow.getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => checkoutWindow.getByRole('alert').innerText()).toBe('Declined');

    await checkoutWindow.getByLabel('Card number').fill(PAYSTACK_TEST_CARDS.pinAndOtp.number);
    await checkoutWindow.getByLabel('CVV').fill(PAYSTACK_TEST_CARDS.pinAndOtp.cvv);
    await checkoutWindow.getByRole('button', { name: 'Pay' }).click();
    await expect
      .poll(() => checkoutWindow.getByRole('alert').innerText())
      .toBe('Kindly enter the OTP sent to your phone');
    await checkoutWindow.getByLabel('OTP').fill(PAYSTACK_TEST_OTP);
    await shot(page, 'paystack-otp');
    await checkoutWindow.getByRole('button', { name: 'Pay' }).click();

    await page.waitForURL(/payment-methods\?done=added$/);
    const listed = await page.locator('.methods').innerText();
    expect(listed).toMatch(/verve/i);
    expect(listed).toContain('6666');
    const methods = await ok(account, 'GET', `/v1/customers/${login.customerId}/paymentmethods`);
    expect(methods).toEqual([
      expect.objectContaining({ CreditCard: expect.objectContaining({ LastFourDigits: '6666' }) }),
    ]);
    const initialized = sim.requests.filter(
      (r) =>
        r.path === '/transaction/initialize' && r.body?.metadata.payer_ref === `customer:${login.customerId}`,
    );
    expect(initialized).toHaveLength(1);
    await context.close();
  });

  it('sent Paystack only what its document allows, and the card numbers never reached the service', async () => {
    expect(policyRefusals).toEqual([]);
    expect(sim.problems).toEqual([]);
    const calls = await t.service.storage.db.selectFrom('gateway_calls').selectAll().execute();
    const recorded = JSON.stringify(calls) + t.logs.join('') + sentToUs.join('\n');
    expect(sentToUs.length).toBeGreaterThan(0);
    for (const card of Object.values(PAYSTACK_TEST_CARDS)) expect(recorded).not.toContain(card.number);
  });
});
