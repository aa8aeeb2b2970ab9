import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventually } from '../helpers/service.ts';
import { LOCK_MS, USERNAME_FAILURES } from '../../src/modules/portal/index.ts';
import { download, expectAccessible, newPage, shot, signIn as signInAt, useBrowser } from './browser.ts';
import { customerWithLogin, portalPath, smtp, t, usePortalService, wallClock } from './fixtures.ts';

/**
 * The portal as a customer meets it, in Debian's Chromium (test/portal/browser.ts): axe on every page, in the light
 * and the dark scheme; screenshots in test-output/portal/.
 */

usePortalService();

/** What the page scripts read of the browser's globals (the DOM is not in this project's types). */
interface PageGlobals {
  document: { activeElement: { id: string } | null; documentElement: { scrollWidth: number } };
}

useBrowser();

/** Another site, which posts a form to the portal. */
let elsewhere: http.Server;
let elsewherePort: number;

beforeAll(async () => {
  elsewhere = http.createServer((request, response) => {
    const target = decodeURIComponent((request.url ?? '/').slice(1));
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><head><title>Prize</title></head><body>
<form method="post" action="${target}"><input name="username" value="x"><input name="password" value="y">
<button type="submit">Claim</button></form></body></html>`);
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.2', resolve));
  elsewherePort = (elsewhere.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => elsewhere?.close(resolve));
});

const signIn = async (page: Page, username: string, password: string) =>
  signInAt(page, `${t.url}${await portalPath()}`, username, password);

/** The username and password the service e-mailed to `email`. */
async function credentialsMailedTo(email: string): Promise<{ username: string; password: string }> {
  const mail = await eventually(() => smtp.messages.find((m) => m.to.includes(email)));
  const text = mail.raw.replace(/=\r?\n/g, '');
  return {
    username: /Username: (\S+)/.exec(text)![1]!,
    password: /Password: (\S+)/.exec(text)![1]!,
  };
}

describe('the customer portal in a browser', () => {
  it('takes a contact from its e-mailed login to its invoices, PDF, new password and sign-out', async () => {
    const customerId = await createCustomer(t, {
      Name: 'Grace',
      LastName: 'Hopper',
      Email: 'grace@example.com',
    });
    const email = `grace.${process.pid}@example.com`;
    await ok(t, 'POST', '/v1/customercontacts', {
      customerID: customerId,
      Name: 'Grace',
      LastName: 'Hopper',
      Email: email,
    });
    const login = await credentialsMailedTo(email);
    const invoice = await issuedInvoice(t, {
      customerId,
      description: 'Compiler maintenance, March',
      amount: '480.25',
      invoiceDate: '2026-03-01',
      dueDate: '2026-03-31',
    });

    const { context, page } = await newPage();
    await page.goto(`${t.url}${await portalPath()}login`);
    expect(await page.getByLabel('Username').getAttribute('autocomplete')).toBe('username');
    expect(await page.getByLabel('Password').getAttribute('autocomplete')).toBe('current-password');
    await expectAccessible(page, 'sign-in');
    await shot(page, 'login');

    // A wrong password: the summary is announced and takes the focus.
    await page.getByLabel('Username').fill(login.username);
    await page.getByLabel('Password').fill('not-the-password1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id))
      .toBe('errors');
    expect(await page.getByRole('alert').innerText()).toContain('The username or password is not right.');
    await expectAccessible(page, 'sign-in refused');
    await shot(page, 'login-error');

    await signIn(page, login.username, login.password);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Grace Hopper');
    expect(await page.locator('.figures').innerText()).toContain('USD 480.25');
    await expectAccessible(page, 'overview');
    await shot(page, 'dashboard');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'dashboard-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByRole('link', { name: 'Invoices', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Invoices');
    await expectAccessible(page, 'invoices');
    await page.getByRole('link', { name: `Invoice ${invoice.invoiceNum}` }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe(`Invoice ${invoice.invoiceNum}`);
    expect(await page.locator('table').first().innerText()).toContain('Compiler maintenance, March');
    await expectAccessible(page, 'invoice');
    await shot(page, 'invoice');

    const pdf = await download(page, () =>
      page.getByRole('link', { name: 'Download the invoice (PDF)' }).click(),
    );
    expect(pdf.head).toBe('%PDF-');

    await page.getByRole('link', { name: 'Password' }).click();
    await expectAccessible(page, 'password');
    expect(await page.getByLabel('New password', { exact: true }).getAttribute('autocomplete')).toBe(
      'new-password',
    );
    await page.getByLabel('Current password').fill(login.password);
    await page.getByLabel('New password', { exact: true }).fill('Better2password');
    await page.getByLabel('New password again').fill('Better2password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Your password was changed');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('You are signed out');
    await signIn(page, login.username, 'Better2password');
    await expect.poll(() => page.locator('h1').innerText()).toBe('Grace Hopper');
    await context.close();
    // A whole walk through the portal in Chromium: twenty seconds on a quiet machine, more when loaded.
  });

  it('is usable 320 pixels wide', async () => {
    const login = await customerWithLogin();
    await issuedInvoice(t, { customerId: login.customerId, amount: '12345.67' });
    const { context, page } = await newPage({ width: 320 });
    await signIn(page, login.username, login.password);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
    // Nothing but the invoices table (which scrolls in its own region) is wider than the screen.
    const overflow = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth,
    );
    expect(overflow).toBeLessThanOrEqual(320);
    await expectAccessible(page, 'overview at 320 px');
    await shot(page, 'dashboard-320');
    await context.close();
  });

  it('signs in with a link once, then refuses it', async () => {
    const login = await customerWithLogin();
    const link = await ok(t, 'POST', '/v1/portal/sessions', { ContactID: login.contactId }, 200);
    const { context, page } = await newPage();
    await page.goto(link.URL);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
    const second = await newPage();
    const answer = await second.page.goto(link.URL);
    expect(answer?.status()).toBe(410);
    await expectAccessible(second.page, 'used link');
    await shot(second.page, 'link-used');
    await context.close();
    await second.context.close();
  });

  it('pauses sign-in after repeated failures and lets the contact in once the wall clock moves past the pause', async () => {
    const login = await customerWithLogin();
    const { context, page } = await newPage();
    for (let i = 0; i < USERNAME_FAILURES; i++) await signIn(page, login.username, `wrong${i}pass`);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Try again after');
    await expectAccessible(page, 'locked');
    await shot(page, 'locked');
    await signIn(page, login.username, login.password);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Try again after');
    wallClock.advance(LOCK_MS + 1000);
    await signIn(page, login.username, login.password);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
    await context.close();
  });

  it("answers 404 for another customer's invoice", async () => {
    const login = await customerWithLogin();
    const someoneElse = await customerWithLogin();
    const theirs = await issuedInvoice(t, { customerId: someoneElse.customerId, amount: 5 });
    const { context, page } = await newPage();
    await signIn(page, login.username, login.password);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
    const answer = await page.goto(`${t.url}${await portalPath()}invoices/${theirs.invoiceID}`);
    expect(answer?.status()).toBe(404);
    expect(await page.locator('h1').innerText()).toBe('Page not found');
    await expectAccessible(page, 'not found');
    await context.close();
  });

  it('refuses a form posted from another site', async () => {
    const { context, page } = await newPage();
    const target = `${t.url}${await portalPath()}login`;
    // Visit the portal first, so the browser holds its form cookie (SameSite=Lax keeps it off a cross-site post).
    await page.goto(target);
    await page.goto(`http://127.0.0.2:${elsewherePort}/${encodeURIComponent(target)}`);
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url() === target),
      page.getByRole('button', { name: 'Claim' }).click(),
    ]);
    expect(answer.status()).toBe(403);
    expect(await page.locator('h1').innerText()).toBe('This form was not sent from the portal');
    await context.close();
  });

  it("ends a deactivated contact's session", async () => {
    const login = await customerWithLogin();
    const { context, page } = await newPage();
    await signIn(page, login.username, login.password);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
    const contact = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, {
      customerID: contact.customerID,
      Name: contact.Name,
      LastName: contact.LastName,
      Email: contact.Email,
      Username: contact.Username,
      isActive: false,
    });
    await page.reload();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Your session ended');
    await context.close();
  });
});
