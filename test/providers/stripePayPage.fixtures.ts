import { expect } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice, payLinkToken } from '../helpers/invoices.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { accountOnProvider, providerSession } from './providerAccount.ts';
import type { StripeSimulator } from './stripeSimulator.ts';
import { advanceClock, plusDays } from '../helpers/clock.ts';

/**
 * A renewal the bank wanted confirmed, on a Stripe account (test/providers/stripePayPage.browser.test.ts): a customer
 * charged by card whose card was saved at Stripe through the capture frame's provider steps (the browser's Stripe.js
 * played by the simulator), an invoice of 30.00 collected from it today, and the collection's off-session charge
 * declined with `authentication_required` (Stripe's test card 4000002760003184 always asks for authentication).
 */

/** docs/gateways.md, "The test gateway's cards": Stripe's test card that always asks for authentication. */
const ALWAYS_AUTHENTICATE = '4000002760003184';

export interface StoredCardSetup {
  account: TestAccount;
  gatewayToken: string;
  customerId: number;
  email: string;
  invoiceId: number;
  /** The pay page's link, as the e-mail carries it. */
  link: string;
  /** The Stripe Customer and PaymentMethod the stored card is. */
  stripeCustomer: string;
  stripeCard: string;
}

let made = 0;

export async function storedCardSetup(t: TestService, sim: StripeSimulator): Promise<StoredCardSetup> {
  made += 1;
  const { account, gatewayId, gatewayToken } = await accountOnProvider(t, sim.fetch, {
    name: 'Coffee by post',
    currencyCode: 'USD',
    gateway: { type: 'stripe', friendlyName: 'Stripe', settings: sim.gatewaySettings },
  });
  const advance = (to: string) => advanceClock(account, to);
  const today = plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1);
  await advance(`${today}T00:00:00.000Z`);

  const email = `cleo${made}@example.com`;
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: 'Cleo',
    Email: email,
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: gatewayId,
  });
  const customerId = customer.customerID as number;
  const session = await providerSession(account, gatewayToken, 'USD');
  const frame = (step: 'start' | 'complete') =>
    t.request('POST', `/widget/capture/${session.HashToken}/provider/${step}`, { auth: false, body: {} });
  const started = await frame('start');
  expect(started.status, started.text).toBe(200);
  await sim.confirmInBrowser(started.body.confirm, {
    number: ALWAYS_AUTHENTICATE,
    expMonth: 12,
    expYear: 2034,
  });
  const setupId = String(started.body.confirm.clientSecret).split('_secret_')[0]!;
  if (sim.intents.get(setupId)?.status === 'requires_action') sim.authenticate(setupId);
  const completed = await frame('complete');
  expect(completed.status, completed.text).toBe(200);
  const done = await account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
    body: { customerID: customerId, SessionToken: session.SessionToken },
  });
  expect(done.status, done.text).toBeLessThan(300);
  const kept = await ok(account, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
  const paymentMethodId = kept.paymentMethodID as number;

  const invoice = await issuedInvoice(account, {
    customerId,
    invoiceDate: today,
    dueDate: today,
    amount: 30,
    collect: { method: 'credit_card', gatewayId, paymentMethodId },
  });
  await advance(`${today}T12:00:00.000Z`);
  const [declined] = (await ok(account, 'GET', `/v1/customers/${customerId}/payments`)) as any[];
  expect(declined).toMatchObject({ FailureReason: 'authentication_required' });

  const setupIntent = sim.intents.get(setupId)!;
  const token = payLinkToken(t, account.accountId, invoice.invoiceID);
  return {
    account,
    gatewayToken,
    customerId,
    email,
    invoiceId: invoice.invoiceID as number,
    link: `${t.url}/pay/${token}`,
    stripeCustomer: setupIntent.customer!,
    stripeCard: setupIntent.paymentMethod!,
  };
}
