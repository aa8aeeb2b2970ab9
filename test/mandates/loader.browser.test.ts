import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { FRAME_TITLE, PUBLISHED_SCRIPT, useBrowserSetup } from './browser.fixtures.ts';
import { t, useMandatesService } from './fixtures.ts';

// docs/hosted-pages.md, "eMandates: a debit authority signed online": the embedding script is pinned by the integrity
// hash the document publishes, and loaded other than by <script src> it frames nothing and says so, rather than
// guess the merchant's own origin for the service's. In Debian's Chromium, on a merchant page of another site.

useMandatesService();

const setup = useBrowserSetup('Embedding script');
const { onFreshPage } = setup;

const sha384 = (bytes: Buffer) => `sha384-${crypto.createHash('sha384').update(bytes).digest('base64')}`;

async function fetchScript(path: string) {
  const res = await fetch(`${t.url}${path}`);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Adds `<script src integrity crossorigin>` to the page; whether it ran (`load`) or was refused (`error`). */
function addScriptTag(page: Page, integrity: string): Promise<string> {
  return page.evaluate<string>(`new Promise(function (resolve) {
    var s = document.createElement('script');
    s.src = ${JSON.stringify(`${t.url}${PUBLISHED_SCRIPT.path}`)};
    s.integrity = ${JSON.stringify(integrity)};
    s.crossOrigin = 'anonymous';
    s.onload = function () { resolve('load'); };
    s.onerror = function () { resolve('error'); };
    document.head.appendChild(s);
  })`);
}

describe('the pinned embedding script', () => {
  it('is served with the bytes of its published integrity hash, immutable, to any origin', async () => {
    const pinned = await fetchScript(PUBLISHED_SCRIPT.path);
    expect(PUBLISHED_SCRIPT.path).toBe('/widget/v2/emandate.js');
    expect(pinned.status).toBe(200);
    expect(sha384(pinned.bytes)).toBe(PUBLISHED_SCRIPT.integrity);
    expect(pinned.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(pinned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(pinned.headers.get('access-control-allow-origin')).toBe('*');
    expect(pinned.headers.get('cross-origin-resource-policy')).toBe('cross-origin');

    // /openapi.json publishes the same tag.
    const openapi = (await (await fetch(`${t.url}/openapi.json`)).json()) as any;
    const create = openapi.paths['/v1/emandate'].post.description as string;
    expect(create).toContain(`${PUBLISHED_SCRIPT.path}" integrity="${PUBLISHED_SCRIPT.integrity}"`);
    expect(create).toContain('crossorigin="anonymous"');

    // The path from before pinning still serves it, briefly cached.
    const old = await fetchScript('/widget/v1/emandate.js');
    expect(old.status).toBe(200);
    expect(old.bytes.equals(pinned.bytes)).toBe(true);
    expect(old.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('runs in the browser with the published hash, and is refused with any other', async () => {
    await onFreshPage(async (page) => {
      await page.goto(`${setup.merchant.origin}/blank`);
      const refusals: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') refusals.push(message.text());
      });
      const tampered = sha384(Buffer.from('something else'));
      expect(await addScriptTag(page, tampered)).toBe('error');
      expect(refusals.join('\n')).toMatch(/integrity/i);
      expect(await page.evaluate<boolean>('typeof window.EMandate === "undefined"')).toBe(true);

      expect(await addScriptTag(page, PUBLISHED_SCRIPT.integrity)).toBe('load');
      expect(await page.evaluate<string>('typeof window.EMandate.init')).toBe('function');
    });
  });
});

describe('the embedding script without a src', () => {
  it.each([
    ['evaluated', '(0, eval)(text);'],
    [
      'inlined',
      "var s = document.createElement('script'); s.textContent = text; document.body.appendChild(s);",
    ],
  ])('frames nothing when %s, and reports an error instead of framing the merchant', async (_how, load) => {
    const token = await setup.embeddedMandate();
    await onFreshPage(async (page) => {
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.goto(`${setup.merchant.origin}/blank`);
      // The merchant's page has the script's text, as a bundler or an inlining build step would give it.
      await page.evaluate(`fetch(${JSON.stringify(`${t.url}${PUBLISHED_SCRIPT.path}`)})
        .then(function (res) { return res.text(); })
        .then(function (text) { ${load} })`);
      await page.evaluate(`window.failed = [];
        EMandate.init({ containerID: 'mandate', token: ${JSON.stringify(token)},
          onComplete: function () {}, onError: function (data) { window.failed.push(data); } });`);

      expect(await page.evaluate<unknown[]>('window.failed')).toEqual([
        { token, reason: 'script_origin_unknown' },
      ]);
      expect(errors.join('\n')).toContain('emandate.js frames nothing: load it with <script src>');
      expect(await page.locator('iframe').count()).toBe(0);
      // Nothing asked for a signing page: not on the merchant's origin, not on the service's.
      expect(requests.filter((url) => url.includes('/widget/emandate/frame/'))).toEqual([]);
    });
  });

  it('leaves an EMandate loaded by its script tag working', async () => {
    const token = await setup.embeddedMandate();
    await onFreshPage(async (page) => {
      await page.goto(`${setup.merchant.origin}/blank`);
      expect(await addScriptTag(page, PUBLISHED_SCRIPT.integrity)).toBe('load');
      await page.evaluate(`fetch(${JSON.stringify(`${t.url}${PUBLISHED_SCRIPT.path}`)})
        .then(function (res) { return res.text(); })
        .then(function (text) { (0, eval)(text); })`);
      await page.evaluate(`EMandate.init({ containerID: 'mandate', token: ${JSON.stringify(token)} })`);
      const frame = page.frameLocator(`iframe[title="${FRAME_TITLE}"]`);
      await frame.getByRole('button', { name: 'Sign mandate' }).waitFor();
      expect(await page.locator('iframe').getAttribute('src')).toMatch(
        new RegExp(`^${t.url}/widget/emandate/frame/${token}\\?widgetId=[0-9a-f]{32}$`),
      );
    });
  });
});
