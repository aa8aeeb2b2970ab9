import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import type { TestAccount } from '../helpers/service.ts';
import { createMandate, mandateAccount, mandateBody, t } from './fixtures.ts';

// What the eMandate browser tests share (docs/design/hosted-pages.md, "Testing in a browser"): Debian's Chromium,
// and a merchant's site on another origin than the service's. Two sites, not two ports: the merchant's page on
// http://localhost:A, the service on http://127.0.0.1:B, with the port kept in AuthDomain.

/** Headless Chromium that talks to nothing but the test's own servers. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * The embedding script as docs/hosted-pages.md publishes it for merchants to copy: its pinned path and integrity
 * hash, read from the document itself, so that the tests load what a merchant's page would.
 */
export const PUBLISHED_SCRIPT = (() => {
  const doc = fs.readFileSync(new URL('../../docs/hosted-pages.md', import.meta.url), 'utf8');
  const found =
    /src="https:\/\/billing\.example\.com(\/widget\/v\d+\/emandate\.js)"\s+integrity="([^"]+)"/.exec(doc);
  if (!found) throw new Error('docs/hosted-pages.md publishes no pinned emandate.js');
  return { path: found[1]!, integrity: found[2]! };
})();

/**
 * The merchant's checkout page: the loader from the service, pinned as published, `EMandate.init` for the token,
 * and the callbacks recorded in window (`completed`, `failed`) for the test to read. Page expressions are given as
 * text: the tests are compiled without the DOM's types.
 */
export function checkoutPage(serviceUrl: string, token: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<main><h1>Checkout</h1><div id="mandate"></div></main>
<script src="${serviceUrl}${PUBLISHED_SCRIPT.path}" integrity="${PUBLISHED_SCRIPT.integrity}" crossorigin="anonymous"></script>
<script>
window.completed = []; window.failed = [];
EMandate.init({ containerID: 'mandate', token: ${JSON.stringify(token)},
  onComplete: function (data) { window.completed.push(data); },
  onError: function (data) { window.failed.push(data); } });
</script></body></html>`;
}

/** A merchant's page with a container and no script: for a test to load the script its own way. */
export const BLANK_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><main><h1>Shop</h1><div id="mandate"></div></main></body></html>`;

export interface MerchantSite {
  /** `http://localhost:PORT`: another site than the service's 127.0.0.1. */
  origin: string;
  close(): Promise<void>;
}

/** Serves `render(url)` as HTML for every path, on localhost. */
export async function startMerchantSite(render: (url: URL) => string): Promise<MerchantSite> {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(render(new URL(request.url ?? '/', 'http://localhost')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The title emandate.js gives the signing frame. */
export const FRAME_TITLE = 'Sign the debit mandate';

export interface BrowserSetup {
  browser: Browser;
  /** Serving checkoutPage for `/?token=`, and BLANK_PAGE at `/blank`. */
  merchant: MerchantSite;
  account: TestAccount;
  /** A debit_StartDate a week ahead. */
  start: string;
  /** Runs `work` on a page of a fresh browser context, `options` its viewport and colour scheme. */
  onFreshPage(
    work: (page: Page) => Promise<void>,
    options?: { width?: number; height?: number; colorScheme?: 'light' | 'dark' },
  ): Promise<void>;
  /** A mandate of the embedded flow that the merchant's site may frame (AuthDomain its origin); its token. */
  embeddedMandate(fields?: Record<string, unknown>): Promise<string>;
  /** Opens the merchant's checkout for the token; the signing frame in it. */
  openCheckout(page: Page, token: string): Promise<FrameLocator>;
}

/**
 * Before the file's tests: Chromium, the merchant's checkout site, and a test account (`seller` its seller
 * details); closed after them. Call after useMandatesService(). The object is filled in before the first test.
 */
export function useBrowserSetup(
  accountName: string,
  options: { seller?: Record<string, unknown> } = {},
): BrowserSetup {
  const setup = {
    async onFreshPage(work, { width = 1024, height = 900, colorScheme = 'light' } = {}) {
      const context = await setup.browser.newContext({ viewport: { width, height }, colorScheme });
      try {
        await work(await context.newPage());
      } finally {
        await context.close();
      }
    },
    embeddedMandate: (fields = {}) =>
      createMandate(
        setup.account,
        mandateBody(setup.start, { AuthDomain: setup.merchant.origin, ...fields }),
      ),
    async openCheckout(page, token) {
      await page.goto(`${setup.merchant.origin}/?token=${encodeURIComponent(token)}`);
      return page.frameLocator(`iframe[title="${FRAME_TITLE}"]`);
    },
  } as BrowserSetup;
  beforeAll(async () => {
    setup.browser = await launchChromium();
    setup.merchant = await startMerchantSite((url) =>
      url.pathname === '/blank' ? BLANK_PAGE : checkoutPage(t.url, url.searchParams.get('token') ?? ''),
    );
    Object.assign(setup, await mandateAccount(accountName, options));
  }, 60_000);
  afterAll(async () => {
    await setup.browser?.close();
    await setup.merchant?.close();
  });
  return setup;
}
