import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * The reference at /docs as a reader sees it: Debian's Chromium, headless, loads the page with every request that
 * leaves this machine refused and recorded, waits for Swagger UI to render the operations, and finds them. The
 * screenshot lands in test-output/ (git-ignored) for a person to look at.
 */

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/docs');

let browser: BrowserContext;
let profile: string;
const t = useTestService();
beforeAll(async () => {
  profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
  // A fresh profile each run: nothing cached from an earlier page or another test.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport: { width: 1280, height: 2000 },
    args: CHROMIUM_ARGS,
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

function isLocal(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
}

describe('the /docs page', () => {
  it('renders every tag and the operations from this service alone, with nothing fetched off this machine', async () => {
    const page = await browser.newPage();
    const offMachine: string[] = [];
    const failed: string[] = [];
    const pageErrors: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (isLocal(url)) return route.continue();
      offMachine.push(url);
      return route.abort();
    });
    page.on('requestfailed', (request) => {
      if (isLocal(request.url())) failed.push(request.url());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(`${t.url}/docs`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.opblock-tag-section', { timeout: 20_000 });

    const document = (await t.request('GET', '/openapi.json', { auth: false })).body;
    const tagNames = await page
      .locator('.opblock-tag')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-tag')));
    expect(tagNames).toEqual(document.tags.map((tag: { name: string }) => tag.name));
    // The tag's description is shown beside its name.
    await expect
      .poll(() => page.locator('.opblock-tag', { hasText: 'Payments' }).first().innerText())
      .toContain('Money received');

    // An operation found by its summary, opened to show its description and its example body.
    const create = page.locator('.opblock', {
      has: page.locator('.opblock-summary-description', { hasText: /^Create a customer$/ }),
    });
    await expect.poll(() => create.count()).toBe(1);
    expect(await create.locator('.opblock-summary-path').innerText()).toContain('/v1/customers');
    await create.locator('.opblock-summary').click();
    const description = create.locator('.opblock-description-wrapper').first();
    await description.waitFor();
    expect(await description.innerText()).toContain('only Name is required');
    const example = await create.locator('.opblock-section-request-body .highlight-code').first().innerText();
    expect(example).toContain('"ada@analytical-engines.example"');
    expect(example).not.toContain('"string"');

    // The introduction explains how to authenticate.
    expect(await page.locator('.information-container').innerText()).toMatch(/account id.*user name/is);

    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs.png'), fullPage: false });
    await create.screenshot({ path: path.join(SCREENSHOTS, 'create-customer.png') });

    expect(offMachine).toEqual([]);
    expect(failed).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 60_000);
});
