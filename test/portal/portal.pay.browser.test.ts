import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { addCard } from '../collections/cards.ts';
import { expectAccessible, newPage, scrollsSideways, shot, useBrowser } from './browser.ts';
import { customerWithLogin, portalPath, t, usePortalService } from './fixtures.ts';

/**
 * Paying in the portal as a customer does it: Debian's Chromium signs in, adds a card through the capture widget
 * framed by the portal's own page, makes it primary and pays an invoice with it; axe on every page in the light and
 * the dark scheme (test/portal/browser.ts).
 */

usePortalService();

useBrowser();

describe('paying in the portal, in a browser', () => {
  it('adds a card through the widget, makes it primary and pays an invoice, which then shows Paid', async () => {
    const login = await customerWithLogin(t, { name: 'Katherine' });
    // An old card, primary, whose bank declines for want of funds.
    await addCard(t, login.customerId, '4000000000009995');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      description: 'Orbital mechanics, March',
      amount: '310.40',
      invoiceDate: '2026-03-01',
      dueDate: '2026-03-10',
    });
    const base = `${t.url}${await portalPath()}`;
    const { context, page } = await newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const refusedByPolicy: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });

    await page.goto(`${base}login`);
    await page.getByLabel('Username').fill(login.username);
    await page.getByLabel('Password').fill(login.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Katherine');
    // The overview offers to pay what is past due (the invoice was due on the 10th).
    expect(await page.getByRole('button', { name: 'Pay all overdue: USD 310.40' }).count()).toBe(1);
    await expectAccessible(page, 'overview with Pay all overdue');
    await shot(page, 'overview');

    // The old card declines: the reason is told in words, and nothing changes.
    await page.getByRole('link', { name: `Invoice ${invoice.invoiceNum}` }).click();
    await page.getByRole('button', { name: 'Pay USD 310.40 now' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('The payment did not go through');
    expect(await page.getByRole('alert').innerText()).toContain('there are not enough funds on the card');
    await expectAccessible(page, 'payment declined');
    await shot(page, 'declined');

    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Payment methods');
    await expectAccessible(page, 'payment methods');
    await shot(page, 'payment-methods');
    await page.getByRole('link', { name: 'Add a card' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Add a card');
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/31');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Katherine Johnson');
    await expectAccessible(page, 'add a card');
    await shot(page, 'add-card');
    await frame.getByRole('button', { name: 'Save card' }).click();

    // The widget's completion posts the portal's form; the portal completes the session on its server.
    await page.waitForURL(/payment-methods\?done=added$/);
    expect(await page.getByRole('status').first().innerText()).toContain('Your card was added.');
    const methods = await ok(t, 'GET', `/v1/customers/${login.customerId}/paymentmethods`);
    expect(methods).toHaveLength(2);
    expect(methods[1]).toMatchObject({
      isPrimary: false,
      CreditCard: { NameOnCard: 'Katherine', LastFourDigits: '4242' },
    });
    expect(await page.locator('main').innerText()).toContain('Visa ending 4242');
    expect(await page.locator('main').innerText()).toContain('Expires 12/2031');
    await shot(page, 'card-added');

    await page.getByRole('button', { name: 'Make primary', description: 'Visa ending 4242' }).click();
    await page.waitForURL(/done=primary$/);
    await expect
      .poll(() => page.locator('h2', { hasText: 'Visa ending 4242' }).innerText())
      .toContain('Primary');
    await expectAccessible(page, 'made primary');
    await shot(page, 'made-primary');

    // At 320 px the page still reads without scrolling sideways.
    await page.setViewportSize({ width: 320, height: 800 });
    expect(await scrollsSideways(page)).toBe(false);
    await shot(page, 'payment-methods-320');
    await page.setViewportSize({ width: 1000, height: 900 });

    await page.goto(`${base}invoices/${invoice.invoiceID}`);
    await expectAccessible(page, 'invoice with Pay');
    await shot(page, 'invoice-due');
    await page.getByRole('button', { name: 'Pay USD 310.40 now' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you: your payment was received');
    expect(await page.getByRole('status').first().innerText()).toContain('USD 310.40 paid on 2026-03-15');
    await expectAccessible(page, 'paid');
    await shot(page, 'paid');
    await page.getByRole('link', { name: `Invoice ${invoice.invoiceNum}` }).click();
    await expect.poll(() => page.locator('.figures').innerText()).toContain('Paid');
    expect(await page.getByRole('button', { name: /^Pay / }).count()).toBe(0);
    await shot(page, 'invoice-paid');
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });

    // The old card, no longer primary, is deleted after the page asks.
    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    await page.getByRole('link', { name: 'Delete', description: 'Visa ending 9995' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Delete Visa ending 9995?');
    await expectAccessible(page, 'delete a method');
    await shot(page, 'delete-confirm');
    await page.getByRole('button', { name: 'Delete Visa ending 9995' }).click();
    await page.waitForURL(/done=deleted$/);
    expect(await page.locator('main').innerText()).not.toContain('Visa ending 9995');

    // Another invoice, paid with a new card as a sale through the widget.
    const second = await issuedInvoice(t, {
      customerId: login.customerId,
      description: 'Trajectory tables',
      amount: '75.00',
      invoiceDate: '2026-03-12',
      dueDate: '2026-03-31',
    });
    await page.goto(`${base}invoices/${second.invoiceID}`);
    await page.getByRole('link', { name: 'pay with a new card' }).click();
    await expect
      .poll(() => page.locator('h1').innerText())
      .toBe(`Pay invoice ${second.invoiceNum} with a new card`);
    const saleFrame = page.frameLocator('iframe[title="Payment details"]');
    await saleFrame.getByLabel('Card number').fill('5555 5555 5555 4444');
    await saleFrame.getByLabel('Expiry').fill('11/30');
    await saleFrame.getByLabel('Security code').fill('321');
    await saleFrame.getByLabel('Name on card').fill('Katherine Johnson');
    await expectAccessible(page, 'pay with a new card');
    await shot(page, 'pay-card');
    await saleFrame.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you: your payment was received');
    expect(await page.getByRole('status').first().innerText()).toContain('USD 75.00 paid on 2026-03-15');
    await shot(page, 'paid-new-card');
    expect(await ok(t, 'GET', `/v1/invoices/${second.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });

    expect(pageErrors).toEqual([]);
    expect(refusedByPolicy).toEqual([]);
    await context.close();
  }, 180_000);

  it('offers the same payment again after the bank does not answer, and records it once', async () => {
    const login = await customerWithLogin(t, { name: 'Dorothy' });
    // The test gateway makes this card's charge and loses the answer.
    await addCard(t, login.customerId, '4000000000000408');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      description: 'Crystallography, March',
      amount: '88.80',
      dueDate: '2026-03-31',
    });
    const base = `${t.url}${await portalPath()}`;
    const { context, page } = await newPage();
    await page.goto(`${base}login`);
    await page.getByLabel('Username').fill(login.username);
    await page.getByLabel('Password').fill(login.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Dorothy');
    await page.goto(`${base}invoices/${invoice.invoiceID}`);
    await page.getByRole('button', { name: 'Pay USD 88.80 now' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('No answer from the bank yet');
    expect(await page.getByRole('alert').innerText()).toContain('you will not be charged twice');
    await expectAccessible(page, 'no answer from the bank');
    await shot(page, 'unanswered');
    await page.setViewportSize({ width: 320, height: 640 });
    expect(await scrollsSideways(page)).toBe(false);
    await shot(page, 'unanswered-320');

    await page.getByRole('button', { name: 'Send the same payment again' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you: your payment was received');
    const payments = await ok(t, 'GET', `/v1/customers/${login.customerId}/payments`);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ Amount: 88.8, Status: 'Allocated' });
    await context.close();
  }, 120_000);
});
