import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { signPayLinkToken } from '../../src/modules/collections/index.ts';
import { createCustomer, ok } from '../helpers/billing.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { customerWithBankAccount, issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { addCard } from '../collections/cards.ts';
import { advanceClock } from '../helpers/clock.ts';
import { plusDays } from '../helpers/clock.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * The page that pays one invoice (docs/hosted-pages.md, "Paying one invoice"), over real HTTP and in Debian's
 * Chromium: its token's checks, the paid page, "Confirm payment" with the test gateway's 3-D Secure card after an
 * off-session decline, "Pay with another card" in the capture frame, and a double submit paying once.
 */

let browser: Browser;
let screenshots: string;

const t = useTestService();
beforeAll(async () => {
  screenshots = fs.mkdtempSync(path.join(os.tmpdir(), 'pay-page-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** docs/gateways.md, "The test gateway's cards": asks for the cardholder's authentication on every sale. */
const NEEDS_AUTHENTICATION = '4000002500003155';
/** Links expire on a whole second, as invoicePayLink makes them. */
const IN_A_WEEK = () => new Date(Math.floor(Date.now() / 1000 + 7 * 86_400) * 1000).toISOString();

interface Setup {
  account: TestAccount;
  today: string;
  customerId: number;
  invoiceId: number;
}

/**
 * A test account with one invoice of 100.00 due today, collected from `cardNumber` (none: an invoice the customer
 * pays by hand), and the clock moved past its first try.
 */
async function invoiceOf(cardNumber: string | null): Promise<Setup> {
  const account = await t.newAccount('Roastery', { isTest: true, timeZone: 'UTC' });
  await ok(account, 'PUT', '/v1/account', { LegalName: 'Karoo Coffee Roasters' });
  const today = plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1);
  await advanceClock(account, `${today}T00:00:00.000Z`);
  const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
  const customerId = await createCustomer(account);
  const paymentMethodId = cardNumber === null ? null : await addCard(account, customerId, cardNumber);
  const invoice = await issuedInvoice(account, {
    customerId,
    invoiceDate: today,
    dueDate: today,
    amount: 100,
    ...(paymentMethodId === null ? {} : { collect: { method: 'credit_card', gatewayId, paymentMethodId } }),
  });
  await advanceClock(account, `${today}T12:00:00.000Z`);
  return { account, today, customerId, invoiceId: invoice.invoiceID as number };
}

const linkOf = (s: Setup, expiresAt = IN_A_WEEK(), accountId = s.account.accountId) =>
  `${t.url}/pay/${signPayLinkToken(t.service.secrets, { accountId, invoiceId: s.invoiceId, expiresAt })}`;

const read = (s: Setup) => ok(s.account, 'GET', `/v1/invoices/${s.invoiceId}`);
const paymentsOf = async (s: Setup) =>
  (await ok(s.account, 'GET', `/v1/customers/${s.customerId}/payments`)) as any[];
/** The test gateway's charges that took money, of any account. */
const chargesTaken = async () =>
  (await t.service.storage.db.selectFrom('test_gateway_charges').selectAll().execute()).filter(
    (charge) => charge.outcome === 'succeeded' && charge.refunds_charge_id === null,
  );

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('who may open the page', () => {
  it('answers 404 for a forged, altered, expired or other account’s link or a cancelled invoice, logging no token', async () => {
    const s = await invoiceOf(null);
    const other = await t.newAccount('Other');
    const good = linkOf(s);
    const [payload, signature] = good.slice(good.lastIndexOf('/') + 1).split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ a: s.account.accountId, i: s.invoiceId + 1, e: 4102444800 }),
    ).toString('base64url');
    for (const bad of [
      `${t.url}/pay/${forged}.${signature}`,
      `${t.url}/pay/${payload}.${signature.slice(2)}`,
      linkOf(s, new Date(Math.floor(Date.now() / 1000 - 1) * 1000).toISOString()),
      linkOf(s, IN_A_WEEK(), other.accountId),
      `${t.url}/pay/nothing`,
    ]) {
      const answer = await fetch(bad);
      expect(answer.status, bad).toBe(404);
      expect(await answer.text()).toContain('This payment page does not exist');
      expect((await fetch(`${bad}/invoice.pdf`)).status).toBe(404);
    }
    const page = await fetch(good);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toMatch(
      /script-src 'nonce-[^']+' http:\/\/127\.0\.0\.1:\d+;/,
    );
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(t.logs.join('')).not.toContain(payload);
    expect(t.logs.join('')).toContain('/pay/[token]');

    // Cancelled (DELETE of an issued invoice), the invoice has no page any more.
    await ok(s.account, 'DELETE', `/v1/invoices/${s.invoiceId}`, undefined, 204);
    expect((await fetch(good)).status).toBe(404);
  });

  it('shows a paid invoice as paid, with its payment’s date, and serves its PDF', async () => {
    const s = await invoiceOf(null);
    await ok(s.account, 'POST', '/v1/payments', {
      customerID: s.customerId,
      Amount: 100,
      CurrencyCode: 'USD',
      Date: s.today,
      Method: 'eft',
      AutoApply: true,
    });
    const html = await (await fetch(linkOf(s))).text();
    expect(html).toContain(`Paid on ${s.today}. Thank you: there is nothing more to do.`);
    expect(html).not.toContain('Confirm payment');
    expect(html).not.toContain('id="billing-capture-');
    const pdf = await fetch(`${linkOf(s)}/invoice.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });
});

describe('a renewal the bank wanted confirmed', () => {
  it('is confirmed in Chromium: the challenge approved, the invoice Paid by one payment and one charge', async () => {
    const s = await invoiceOf(NEEDS_AUTHENTICATION);
    expect(await read(s)).toMatchObject({ NumTries: 1, NextTryDate: null, Balance: 100 });
    expect((await paymentsOf(s))[0]).toMatchObject({ FailureReason: 'authentication_required' });
    const chargesBefore = (await chargesTaken()).length;

    const page = await browser.newPage({ viewport: { width: 800, height: 1000 } });
    const errors: string[] = [];
    // Every request of the page and its frame answered, and nothing refused by a policy (the browser's own
    // /favicon.ico aside: hosted pages have no icon yet).
    page.on('response', (response) => {
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) errors.push(response.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        errors.push(message.text());
      }
    });
    await page.goto(linkOf(s));
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toMatch(/^Invoice \d+$/);
    expect(await page.locator('.seller').innerText()).toBe('Karoo Coffee Roasters');
    expect(await page.locator('dd.owed').innerText()).toBe('100.00 USD');
    await page.screenshot({ path: path.join(screenshots, 'confirm.png'), fullPage: true });

    await page.getByRole('button', { name: 'Confirm payment' }).click();
    const panel = page.getByRole('region', { name: 'Confirm this payment', exact: true });
    await panel.waitFor();
    expect(await panel.innerText()).toContain('Visa ending in 3155');
    await page.screenshot({ path: path.join(screenshots, 'challenge.png'), fullPage: true });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Thank you: there is nothing more to do.').waitFor();
    await page.screenshot({ path: path.join(screenshots, 'paid.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();

    expect(await read(s)).toMatchObject({ Status: 'Paid', Balance: 0, NextTryDate: null });
    const paid = (await paymentsOf(s)).filter((p) => p.Status === 'Allocated');
    expect(paid).toEqual([
      expect.objectContaining({
        Amount: 100,
        Method: 'credit_card',
        Allocations: [expect.objectContaining({ invoiceID: s.invoiceId, amountApplied: 100 })],
      }),
    ]);
    expect((await chargesTaken()).length - chargesBefore).toBe(1);
    // The next run charges nothing more.
    await advanceClock(s.account, `${plusDays(s.today, 3)}T12:00:00.000Z`);
    expect((await paymentsOf(s)).filter((p) => p.Status === 'Allocated')).toHaveLength(1);
    const types = (await ok(s.account, 'GET', `/v1/events?limit=100`)).map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['payment.created', 'invoice.paid']));
    // Done by a customer in a hosted page: the widget's actor, named by the route and never the token.
    const audit = await ok(
      s.account,
      'GET',
      `/v1/auditlog?resourceType=payment&resourceID=${paid[0].paymentID}&actorType=widget`,
    );
    expect(audit).toEqual([
      expect.objectContaining({
        ActorType: 'widget',
        apiKeyID: null,
        Operation: 'POST /widget/capture/:HashToken/challenge',
        EventType: 'payment.created',
      }),
    ]);
  });

  it('charges once when Confirm and complete are each sent twice at once', async () => {
    const s = await invoiceOf(NEEDS_AUTHENTICATION);
    const link = linkOf(s);
    const html = await (await fetch(link)).text();
    const session = /id="confirm"[^>]*data-session="([0-9a-f]{64})"/.exec(html)![1]!;
    const chargesBefore = (await chargesTaken()).length;

    const confirms = await Promise.all([
      post(`${link}/confirm`, { session }),
      post(`${link}/confirm`, { session }),
    ]);
    const answers = await Promise.all(
      confirms.map(async (r) => ({ status: r.status, body: (await r.json()) as any })),
    );
    // One after the other they each ask the bank, which wants the cardholder both times (nothing is taken), the
    // second challenge replacing the first; at once, the second finds the first under way (409).
    expect(
      answers.every((a) => a.status === 200 || a.status === 409),
      JSON.stringify(answers),
    ).toBe(true);
    const challengeIds = answers.filter((a) => a.status === 200).map((a) => a.body.challenge.id as string);
    expect(challengeIds.length).toBeGreaterThan(0);

    // Every challenge approved twice at once: one approval charges, the others find no challenge waiting.
    const approvals = await Promise.all(
      challengeIds.flatMap((challengeId) => [
        post(`${t.url}/widget/capture/${session}/challenge`, { challengeId, outcome: 'approve' }),
        post(`${t.url}/widget/capture/${session}/challenge`, { challengeId, outcome: 'approve' }),
      ]),
    );
    expect(approvals.filter((r) => r.status === 200)).toHaveLength(1);
    const completes = await Promise.all([
      post(`${link}/complete`, { session, way: 'confirm' }),
      post(`${link}/complete`, { session, way: 'confirm' }),
    ]);
    expect(completes.map((r) => r.status)).toEqual([200, 200]);

    expect(await read(s)).toMatchObject({ Status: 'Paid', Balance: 0 });
    expect((await paymentsOf(s)).filter((p) => p.Status === 'Allocated')).toHaveLength(1);
    expect((await chargesTaken()).length - chargesBefore).toBe(1);
    // Paid, the page offers nothing more, and a confirm is refused.
    expect((await post(`${link}/confirm`, { session })).status).toBe(404);
  });
});

describe('a charge recorded without the browser coming back', () => {
  it('records the confirmed charge when the tab closes before /complete', async () => {
    const s = await invoiceOf(NEEDS_AUTHENTICATION);
    const chargesBefore = (await chargesTaken()).length;
    const page = await browser.newPage({ viewport: { width: 800, height: 1000 } });
    // The page never reaches /complete, as when its tab closes right after the bank's answer.
    const completes: string[] = [];
    await page.route('**/complete', (route) => {
      completes.push(route.request().url());
      return route.abort();
    });
    await page.goto(linkOf(s));
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByRole('region', { name: 'Confirm this payment', exact: true }).waitFor();
    const approved = page.waitForResponse((r) => r.url().endsWith('/challenge'));
    await page.getByRole('button', { name: 'Approve' }).click();
    expect((await approved).status()).toBe(200);
    await page.close();

    expect(completes.length).toBeLessThanOrEqual(1);
    expect(await read(s)).toMatchObject({ Status: 'Paid', Balance: 0, NextTryDate: null });
    expect((await paymentsOf(s)).filter((p) => p.Status === 'Allocated')).toHaveLength(1);
    expect((await chargesTaken()).length - chargesBefore).toBe(1);
    // The page, opened again, shows it paid and records nothing more.
    expect(await (await fetch(linkOf(s))).text()).toContain('Thank you: there is nothing more to do.');
    expect((await paymentsOf(s)).filter((p) => p.Status === 'Allocated')).toHaveLength(1);
  });

  it('records a frame sale whose /complete never came, by fetch alone', async () => {
    const s = await invoiceOf(null);
    const html = await (await fetch(linkOf(s))).text();
    const session = /data-hash-token="([0-9a-f]{64})"/.exec(html)![1]!;
    const submitted = await post(`${t.url}/widget/capture/${session}/submit`, {
      number: '4242424242424242',
      expiry: '12/39',
      securityCode: '123',
      name: 'Ada Lovelace',
    });
    expect(submitted.status, await submitted.clone().text()).toBe(200);
    expect(await read(s)).toMatchObject({ Status: 'Paid', Balance: 0 });
    expect((await paymentsOf(s)).filter((p) => p.Status === 'Allocated')).toHaveLength(1);
    // A late /complete is the same answer and records nothing more.
    expect((await post(`${linkOf(s)}/complete`, { session, way: 'card' })).status).toBe(200);
    expect((await paymentsOf(s)).filter((p) => p.Status === 'Allocated')).toHaveLength(1);
  });
});

describe('paying with another card', () => {
  it('takes the card in the frame, pays the invoice and makes the card the primary one', async () => {
    const s = await invoiceOf(NEEDS_AUTHENTICATION);
    const page = await browser.newPage({ viewport: { width: 800, height: 1100 } });
    await page.goto(linkOf(s));
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/39');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    await page.screenshot({ path: path.join(screenshots, 'new-card.png'), fullPage: true });
    await frame.getByRole('button', { name: 'Pay 100.00 USD' }).click();
    await page.getByText('Thank you: there is nothing more to do.').waitFor();
    await page.close();

    expect(await read(s)).toMatchObject({ Status: 'Paid', Balance: 0, NextTryDate: null });
    expect((await paymentsOf(s)).filter((p) => p.Status === 'Allocated')).toHaveLength(1);
    const methods = await ok(s.account, 'GET', `/v1/customers/${s.customerId}/paymentmethods`);
    const primary = (methods as any[]).filter((m) => m.isPrimary);
    expect(primary).toHaveLength(1);
    expect(JSON.stringify(primary[0])).toContain('4242');
  });
});

/** A customer collected by debit order from an ACH account ending 6789. */
const DEBIT_CUSTOMER = {
  customer: { Name: 'Debit customer', Email: 'debit@example.com', PaymentMethod: 'debit_order' },
  bankAccount: {
    Method: 'ach',
    AccountType: 'Checking',
    AccountHolder: 'Ada Lovelace',
    Bank: 'Test Bank',
    AccountNumber: '000123456789',
    RoutingNumber: '110000000',
  },
};

describe('a customer collected by debit order', () => {
  it('keeps the bank account primary and the card beside it', async () => {
    const s = await invoiceOf(null);
    const { customerId, paymentMethodId } = await customerWithBankAccount(s.account, {
      ...DEBIT_CUSTOMER,
    });
    const invoice = await issuedInvoice(s.account, {
      customerId,
      invoiceDate: s.today,
      dueDate: plusDays(s.today, 30),
      amount: 40,
    });
    const d: Setup = { ...s, customerId, invoiceId: invoice.invoiceID as number };
    const page = await browser.newPage({ viewport: { width: 800, height: 1100 } });
    await page.goto(linkOf(d));
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/39');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    await frame.getByRole('button', { name: 'Pay 40.00 USD' }).click();
    await page.getByText('Thank you: there is nothing more to do.').waitFor();
    await page.close();

    expect(await read(d)).toMatchObject({ Status: 'Paid', Balance: 0 });
    const methods = (await ok(s.account, 'GET', `/v1/customers/${customerId}/paymentmethods`)) as any[];
    expect(methods).toHaveLength(2);
    expect(methods.filter((m) => m.isPrimary).map((m) => m.paymentMethodID)).toEqual([paymentMethodId]);
    expect(JSON.stringify(methods.find((m) => !m.isPrimary))).toContain('4242');
    expect((await ok(s.account, 'GET', `/v1/customers/${customerId}`)).PaymentMethod).toBe('debit_order');
  });
});

describe('an invoice with a debit waiting for the bank', () => {
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  /** "2027-01-25" → "25 Jan 2027", as documents print dates. */
  const printed = (date: string) => {
    const [y, m, d] = date.split('-').map(Number);
    return `${d} ${MONTHS[m! - 1]} ${y}`;
  };

  /** A customer's invoice of 100.00 USD with `debited` of it in an ACH batch a week ahead, as a pending line. */
  async function pendingDebitOf(debited: number) {
    const s = await invoiceOf(null);
    const [gateway] = await ok(s.account, 'GET', '/v1/gateways');
    // Account 000123456789: debited from the account ending 6789.
    const { customerId, paymentMethodId } = await customerWithBankAccount(s.account, {
      ...DEBIT_CUSTOMER,
      validateAt: gateway.gatewayID,
    });
    const invoice = await issuedInvoice(s.account, {
      customerId,
      invoiceDate: s.today,
      dueDate: plusDays(s.today, 30),
      amount: 100,
    });
    const actionDate = plusDays(s.today, 7);
    const batch = await ok(s.account, 'POST', '/v1/batches', {
      CurrencyCode: 'USD',
      GatewayToken: gateway.GatewayToken,
      ActionDate: actionDate,
    });
    await ok(s.account, 'POST', '/v1/batches/payments', {
      BatchToken: batch.BatchToken,
      customerID: customerId,
      Amount: debited,
      paymentMethodID: paymentMethodId,
      PaymentApplied: [{ invoiceID: invoice.invoiceID, amount: debited }],
    });
    const d: Setup = { ...s, customerId, invoiceId: invoice.invoiceID as number };
    return { d, words: `To be debited on ${printed(actionDate)} from account ending 6789` };
  }

  it('shows it as due and to be debited, never as paid, and offers nothing to pay twice', async () => {
    const { d, words } = await pendingDebitOf(100);
    // The API keeps the spec's figures: Balance net of the pending payment, Status Pending.
    expect(await read(d)).toMatchObject({ Status: 'Pending', Balance: 0, TotalPendingPaid: 100 });
    const html = await (await fetch(linkOf(d))).text();
    expect(html).toContain('<dt>Amount due</dt><dd class="owed">100.00 USD</dd>');
    expect(html).toContain(`<dt>Pending debit</dt><dd>${words}: 100.00 USD</dd>`);
    expect(html).toContain('Nothing to pay here: the amount due will be debited as shown above.');
    expect(html).not.toContain('Paid on');
    expect(html).not.toContain('Thank you: there is nothing more to do.');
    expect(html).not.toContain('Confirm payment');
    expect(html).not.toContain('id="billing-capture-');
  });

  it('offers in Chromium to pay only what the debit leaves, and pays it', async () => {
    const { d, words } = await pendingDebitOf(40);
    const page = await browser.newPage({ viewport: { width: 800, height: 1100 } });
    await page.goto(linkOf(d));
    await page.getByText(`${words}: 40.00 USD`).waitFor();
    expect(await page.locator('dd.owed').textContent()).toBe('100.00 USD');
    await page
      .getByText(
        'Part of the amount due will be debited as shown above; paying here pays the rest, 60.00 USD.',
      )
      .waitFor();
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/39');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    await frame.getByRole('button', { name: 'Pay 60.00 USD' }).click();
    // Paid but for the debit: the page still shows it due and to be debited, with nothing more to pay here.
    await page.getByText('Nothing to pay here: the amount due will be debited as shown above.').waitFor();
    expect(await page.locator('dd.owed').textContent()).toBe('40.00 USD');
    await page.close();
    expect(await read(d)).toMatchObject({
      Status: 'Pending',
      Balance: 0,
      TotalPendingPaid: 40,
      TotalActualPaid: 60,
    });
  });
});
