import { execFileSync } from 'node:child_process';
import type { FrameLocator } from 'playwright-core';
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { eventually } from '../helpers/service.ts';
import { download, expectAccessible, newPage, shot, signIn, useBrowser } from './browser.ts';
import { portalPath, smtp, t, usePortalService } from './fixtures.ts';

/**
 * A customer's whole visit, as docs/portal.md describes it to the business: a contact made through the API gets its
 * login by e-mail (a real SMTP receiver), signs in, finds the invoices the bill run made, downloads one and its
 * statement, pays one through the capture widget, adds a card and makes it primary, cancels its subscription at
 * the end of the period, changes its password and signs out. A test account, so the bill run follows its test clock.
 */

usePortalService();
useBrowser();

const card = async (frame: FrameLocator, number: string) => {
  await frame.getByLabel('Card number').fill(number);
  await frame.getByLabel('Expiry').fill('10/32');
  await frame.getByLabel('Security code').fill('737');
  await frame.getByLabel('Name on card').fill('Mary Jackson');
};

describe('a customer in the portal, from the e-mailed login to signing out', () => {
  it('does everything the portal offers, and the API sees each change', async () => {
    const shop = await t.newAccount('Langley Supplies', { isTest: true });
    await ok(shop, 'PUT', '/v1/account', {
      PortalSlug: `walk-${process.pid}`,
      LegalName: 'Langley Supplies Ltd',
    });
    const base = `${t.url}${await portalPath(shop)}`;
    const plan = await createPlan(shop, { chargePrice: 49.5 });
    const customerId = await createCustomer(shop, {
      Name: 'Mary',
      LastName: 'Jackson',
      Email: 'mary@example.com',
    });
    const subscription = await subscribe(shop, customerId, plan);
    // The bill run renews the subscription a month on: two invoices of 49.50.
    await ok(shop, 'POST', '/v1/test-clock/advance', { To: '2026-04-16T10:00:00.000Z' }, 200);
    const [march, april] = await invoicesOf(shop, customerId);
    expect([march.InvoiceDate, april.InvoiceDate, march.Total, april.Total]).toEqual([
      '2026-03-15T00:00:00.000Z',
      '2026-04-15T00:00:00.000Z',
      49.5,
      49.5,
    ]);

    const email = `mary.${process.pid}@example.com`;
    await ok(shop, 'POST', '/v1/customercontacts', {
      customerID: customerId,
      Name: 'Mary',
      LastName: 'Jackson',
      Email: email,
    });
    const mail = await eventually(() => smtp.messages.find((m) => m.to.includes(email)));
    const message = await PostalMime.parse(mail.raw);
    expect(message.html).toContain(`<a href="${base}">Sign in to the customer portal</a>`);
    const username = /^Username: (.+)$/m.exec(message.text ?? '')![1]!;
    const password = /^Password: (\S+)$/m.exec(message.text ?? '')![1]!;

    const { context, page } = await newPage();
    await signIn(page, base, username, password);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Mary Jackson');
    // 49.50 + 49.50 owed.
    expect(await page.locator('.figures').innerText()).toContain('USD 99.00');
    await shot(page, 'walk-overview');

    await page.getByRole('link', { name: 'Invoices', exact: true }).click();
    const list = await page.locator('table').innerText();
    expect(list).toContain(`Invoice ${march.invoiceNum}`);
    expect(list).toContain(`Invoice ${april.invoiceNum}`);
    await page.getByRole('link', { name: `Invoice ${april.invoiceNum}` }).click();
    const invoicePdf = await download(page, () =>
      page.getByRole('link', { name: 'Download the invoice (PDF)' }).click(),
    );
    expect(invoicePdf.head).toBe('%PDF-');
    expect(execFileSync('pdftotext', [invoicePdf.file, '-']).toString()).toContain('Langley Supplies Ltd');

    await page.getByRole('link', { name: 'Statement', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Statement of account');
    const statementPdf = await download(page, () => page.getByRole('link', { name: 'Download PDF' }).click());
    expect(statementPdf.head).toBe('%PDF-');
    await expectAccessible(page, 'walk: statement');

    // March's invoice, paid with a new card through the widget.
    await page.goto(`${base}invoices/${march.invoiceID}`);
    await page.getByRole('link', { name: 'pay with a new card' }).click();
    const saleFrame = page.frameLocator('iframe[title="Payment details"]');
    await card(saleFrame, '4242 4242 4242 4242');
    await saleFrame.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you: your payment was received');
    await page.getByRole('link', { name: `Invoice ${march.invoiceNum}` }).click();
    await expect.poll(() => page.locator('.figures').innerText()).toContain('Paid');
    await shot(page, 'walk-invoice-paid');
    expect(await ok(shop, 'GET', `/v1/invoices/${march.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });

    // Another card, made primary.
    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    await page.getByRole('link', { name: 'Add a card' }).click();
    const addFrame = page.frameLocator('iframe[title="Payment details"]');
    await card(addFrame, '5555 5555 5555 4444');
    await addFrame.getByRole('button', { name: 'Save card' }).click();
    await page.waitForURL(/payment-methods\?done=added$/);
    await page.getByRole('button', { name: 'Make primary', description: /ending 4444/ }).click();
    await page.waitForURL(/done=primary$/);
    const methods = await ok(shop, 'GET', `/v1/customers/${customerId}/paymentmethods`);
    expect(methods.map((m: any) => [m.CreditCard?.LastFourDigits, m.isPrimary]).sort()).toEqual([
      ['4242', false],
      ['4444', true],
    ]);
    await shot(page, 'walk-payment-methods');
    await page.getByRole('link', { name: 'Debit order mandates' }).click();
    await expect.poll(() => page.locator('main').innerText()).toContain('You have no debit order mandates.');
    await expectAccessible(page, 'walk: mandates');

    // The subscription, cancelled at the end of the period it is in.
    await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();
    await page.getByRole('link', { name: new RegExp(`no\\. ${subscription.subscriptionID}`) }).click();
    await page.getByLabel('Why are you cancelling?').selectOption({ label: 'It costs too much' });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: /^Cancel on / }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('set to end');
    await shot(page, 'walk-cancelled');
    expect(await ok(shop, 'GET', `/v1/subscriptions/${subscription.subscriptionID}`)).toMatchObject({
      CancelType: 'renewal',
    });

    await page.getByRole('link', { name: 'Password' }).click();
    await page.getByLabel('Current password').fill(password);
    await page.getByLabel('New password', { exact: true }).fill('Runway7Clearance');
    await page.getByLabel('New password again').fill('Runway7Clearance');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Your password was changed');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('You are signed out');

    // The old password no longer works; the new one does.
    await signIn(page, base, username, password);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('not right');
    await signIn(page, base, username, 'Runway7Clearance');
    await expect.poll(() => page.locator('h1').innerText()).toBe('Mary Jackson');
    await context.close();
  }, 180_000);
});
