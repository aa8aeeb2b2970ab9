import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { t } from './fixtures.ts';

/**
 * The capture widget as a customer meets it: Debian's Chromium, headless, on a merchant's page served by the test
 * on http://localhost:A, framing the service on http://127.0.0.1:B (two sites, as in production; docs/design/
 * hosted-pages.md, "Testing in a browser"). Screenshots go to the system's temporary directory, outside git.
 */

/** The merchant's pages by path: each embeds a session's Html and records the widget's events in `window`. */
const pages = new Map<string, string>();
let merchant: http.Server;
let merchantPort: number;
let profile: string;
/** The browser (a live binding, set in beforeAll). */
export let browser: BrowserContext;
/** Where this file's screenshots go (outside git). */
export let SCREENSHOTS: string;

const NONCE = 'bWVyY2hhbnQtcGFnZQ==';

function merchantPage(html: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Checkout</title></head><body>
<main><h1>Checkout</h1>
${html}
</main>
<script nonce="${NONCE}">
  window.widgetEvents = [];
  var container = document.querySelector('[data-billing-capture]');
  ['widget.ready', 'capture.submitting', 'capture.challenge', 'capture.completed', 'capture.failed', 'session.expired'].forEach(function (type) {
    container.addEventListener('billing:' + type, function (event) { window.widgetEvents.push({ type: type, detail: event.detail }); });
  });
</script></body></html>`;
}

/** Starts the merchant's server and Chromium for the file, and stops them after. */
export function useMerchantAndBrowser(prefix: string): void {
  beforeAll(async () => {
    SCREENSHOTS = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
    merchant = http.createServer((request, response) => {
      const body = pages.get(request.url ?? '');
      if (body === undefined) {
        response.writeHead(404).end();
        return;
      }
      // The merchant's own policy, with the lines docs/hosted-pages.md asks for.
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'none'; script-src 'nonce-${NONCE}' ${t.url}; frame-src ${t.url} http://localhost:${merchantPort}`,
      });
      response.end(body);
    });
    await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
    merchantPort = (merchant.address() as AddressInfo).port;
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 800, height: 900 },
      args: CHROMIUM_ARGS,
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => merchant?.close(resolve));
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });
}

/** The merchant's origin (its server's port is known once started). */
export const merchantOrigin = () => `http://localhost:${merchantPort}`;
export const merchantPortOf = () => merchantPort;

/** Serves a checkout page with the session's Html under `name`. */
export function serve(name: string, html: string): string {
  pages.set(`/${name}`, merchantPage(html));
  return `/${name}`;
}

/** Serves `document` as it is under `name` (a page that is not a checkout). */
export function serveRaw(name: string, document: string): string {
  pages.set(`/${name}`, document);
  return `/${name}`;
}

type WidgetEvent = { type: string; detail: unknown };

export const events = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { widgetEvents: WidgetEvent[] }).widgetEvents);

/** Waits until the page was told `type` `count` times. */
export async function told(page: Page, type: string, count = 1): Promise<void> {
  await page.waitForFunction(
    ([wanted, times]) =>
      (globalThis as unknown as { widgetEvents: WidgetEvent[] }).widgetEvents.filter((e) => e.type === wanted)
        .length >= (times as number),
    [type, count] as const,
  );
}
