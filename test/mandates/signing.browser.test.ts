import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext } from 'playwright-core';
import type { TestAccount } from '../helpers/service.ts';
import { accountToday, createMandate, mandateBody, readMandate, t, useMandatesService } from './fixtures.ts';

// docs/design/hosted-pages.md, "Testing in a browser": Debian's Chromium signs mandates on the hosted page and in the
// frame the embedding script inserts. Two sites, not two ports: the merchant's page on http://localhost:A, the
// service on http://127.0.0.1:B, with the port kept in AuthDomain. A fresh browser context per test; no timed waits.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots for a person to look at (git-ignored). */
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/emandate');

useMandatesService();

let browser: Browser;
let merchant: http.Server;
let merchantOrigin: string;
let account: TestAccount;
let start: string;

// Page expressions are given as text: the test is compiled without the DOM's types.

/** The merchant's page: the loader from the service, and the callbacks recorded in window for the test to read. */
function merchantPage(serviceUrl: string, token: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head><body>
<main><h1>Checkout</h1><div id="mandate"></div></main>
<script src="${serviceUrl}/widget/v1/emandate.js"></script>
<script>
window.completed = []; window.failed = [];
EMandate.init({ containerID: 'mandate', token: ${JSON.stringify(token)},
  onComplete: function (data) { window.completed.push(data); },
  onError: function (data) { window.failed.push(data); } });
</script></body></html>`;
}

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  merchant = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(merchantPage(t.url, url.searchParams.get('token') ?? ''));
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantOrigin = `http://localhost:${(merchant.address() as AddressInfo).port}`;
  account = await t.newAccount('Browser signing', { isTest: true });
  const seller = await account.request('PUT', '/v1/account', {
    body: { LegalName: 'Northwind Software Ltd' },
  });
  expect(seller.status, seller.text).toBeLessThan(300);
  const today = await accountToday(account);
  start = new Date(Date.parse(`${today}T00:00:00Z`) + 7 * 86_400_000).toISOString().slice(0, 10);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => merchant?.close(resolve));
});

async function freshContext(width = 1024): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width, height: 900 } });
}

describe('the hosted signing page in a browser', () => {
  it('signs with the keyboard alone, at 320 px wide, and shows the outcome', async () => {
    const token = await createMandate(account, mandateBody(start), '/widget/emandate');
    const context = await freshContext(320);
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${t.url}/widget/emandate/${token}`);
      await expect.poll(() => page.title()).toBe('Sign the debit mandate');
      // Nothing wider than the screen.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'signing-320.png'), fullPage: true });
      const consent = page.getByRole('checkbox');
      expect(await consent.isChecked()).toBe(false);

      // Every control is labelled, and reached in order with Tab.
      await page.getByLabel('Telephone').focus();
      const order: string[] = [];
      for (let i = 0; i < 12; i += 1) {
        order.push(await page.evaluate<string>("document.activeElement ? document.activeElement.id : ''"));
        if (order.at(-1) === 'f-Consent') break;
        await page.keyboard.press('Tab');
      }
      expect(order.at(-1)).toBe('f-Consent');
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Thandi Nkosi');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Mandate signed' }).waitFor();
      expect(errors).toEqual([]);
      expect(await page.getByRole('link', { name: /Download the signed mandate/ }).getAttribute('href')).toBe(
        `/widget/emandate/download?token=${token}`,
      );
    } finally {
      await context.close();
    }
    const mandate = await readMandate(account, token);
    expect(mandate.Status).toBe('signed');
  });

  it('names what is missing when the box is left unticked', async () => {
    const token = await createMandate(account, mandateBody(start), '/widget/emandate');
    const context = await freshContext();
    try {
      const page = await context.newPage();
      await page.goto(`${t.url}/widget/emandate/${token}`);
      await page.getByLabel(/Type your full name/).fill('Thandi Nkosi');
      await page.getByRole('button', { name: 'Sign mandate' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').innerText()).toContain('Tick the box to agree');
    } finally {
      await context.close();
    }
    expect((await readMandate(account, token)).Status).toBe('pending_signature');
  });
});

describe('the embedded frame in a browser', () => {
  it('is signed in the frame on the merchant page, which hears onComplete', async () => {
    const token = await createMandate(account, mandateBody(start, { AuthDomain: merchantOrigin }));
    const context = await freshContext();
    try {
      const page = await context.newPage();
      await page.goto(`${merchantOrigin}/?token=${token}`);
      const frame = page.frameLocator('iframe[title="Sign the debit mandate"]');
      await frame.getByRole('checkbox').check();
      await frame.getByLabel(/Type your full name/).fill('Thandi Nkosi');
      await frame.getByRole('button', { name: 'Sign mandate' }).click();
      await page.waitForFunction('window.completed.length > 0');
      expect(await page.evaluate<unknown[]>('window.completed')).toEqual([{ token }]);
      await frame.getByRole('heading', { name: 'Mandate signed' }).waitFor();
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'embedded-signed.png') });
    } finally {
      await context.close();
    }
    expect((await readMandate(account, token)).Status).toBe('signed');
  });

  it('tells the merchant page onError when the signee declines in the frame', async () => {
    const token = await createMandate(account, mandateBody(start, { AuthDomain: merchantOrigin }));
    const context = await freshContext();
    try {
      const page = await context.newPage();
      await page.goto(`${merchantOrigin}/?token=${token}`);
      const frame = page.frameLocator('iframe[title="Sign the debit mandate"]');
      await frame.getByRole('button', { name: 'Decline' }).click();
      await page.waitForFunction('window.failed.length > 0');
      expect(await page.evaluate<unknown[]>('window.failed')).toEqual([{ token, reason: 'declined' }]);
      expect(await page.evaluate<unknown[]>('window.completed')).toEqual([]);
    } finally {
      await context.close();
    }
    expect((await readMandate(account, token)).Status).toBe('rejected');
  });

  it('is refused by frame-ancestors on a page of another origin', async () => {
    // The mandate allows only an origin that is not the merchant page's.
    const token = await createMandate(account, mandateBody(start, { AuthDomain: 'https://shop.example' }));
    const context = await freshContext();
    try {
      const page = await context.newPage();
      const refused = page.waitForEvent('console', (message) => message.text().includes('frame-ancestors'));
      await page.goto(`${merchantOrigin}/?token=${token}`);
      expect((await refused).text()).toContain('https://shop.example');
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(
        await frame
          ?.locator('form')
          .count()
          .catch(() => 0),
      ).toBe(0);
      expect(await page.evaluate<unknown[]>('window.completed')).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
