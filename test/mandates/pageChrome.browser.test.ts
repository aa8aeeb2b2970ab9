import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { sessionBody } from '../widgets/fixtures.ts';
import { useBrowserSetup } from './browser.fixtures.ts';
import { createPageMandate, mandateBody, t, useMandatesService } from './fixtures.ts';

// The pages people see (docs/hosted-pages.md, "Favicon"; "eMandates: a debit authority signed online"): each links
// the service's icon, which its policy allows, and the signing page focuses its error summary after a failed submit.

useMandatesService();

const setup = useBrowserSetup('Page chrome');
const { onFreshPage } = setup;

const LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">';

async function page(path: string): Promise<{ html: string; csp: string }> {
  const res = await fetch(`${t.url}${path}`);
  expect(res.status, path).toBe(200);
  return { html: await res.text(), csp: res.headers.get('content-security-policy') ?? '' };
}

describe('the favicon', () => {
  it('answers at /favicon.svg and /favicon.ico as SVG, cached', async () => {
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
  });

  it('is linked by the eMandate page, the capture frame and the portal, each policy allowing it', async () => {
    const token = await createPageMandate(setup.account, mandateBody(setup.start));
    const slug = `chrome-${process.pid}`;
    await ok(setup.account, 'PUT', '/v1/account', { PortalSlug: slug });
    const session = await ok(
      setup.account,
      'POST',
      '/v1/widgets/capturepaymethod/create',
      await sessionBody(setup.account),
      200,
    );
    for (const path of [
      `/widget/emandate/${token}`,
      `/widget/capture/${session.HashToken}`,
      `/portal/${slug}/login`,
    ]) {
      const { html, csp } = await page(path);
      expect(html, path).toContain(LINK);
      expect(csp, path).toMatch(/img-src 'self'/);
    }
  });

  it('loads with the eMandate page in Chromium, with no request failing', async () => {
    const token = await createPageMandate(setup.account, mandateBody(setup.start));
    await onFreshPage(async (browserPage) => {
      const failed: string[] = [];
      browserPage.on('requestfailed', (request) => failed.push(request.url()));
      browserPage.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
      browserPage.on('console', (message) => {
        if (message.type() === 'error') failed.push(message.text());
      });
      await browserPage.goto(`${t.url}/widget/emandate/${token}`);
      // The icon as the page's policy lets it load: an image from the page's own origin.
      const loaded = await browserPage.evaluate<boolean>(`new Promise((resolve) => {
        const image = new Image();
        image.onload = () => resolve(true);
        image.onerror = () => resolve(false);
        image.src = document.querySelector('link[rel=icon]').href;
      })`);
      expect(loaded).toBe(true);
      expect(failed).toEqual([]);
    });
  });
});

describe('the eMandate page after a failed submit', () => {
  it('moves the focus to its error summary', async () => {
    const token = await createPageMandate(setup.account, mandateBody(setup.start));
    await onFreshPage(async (browserPage) => {
      await browserPage.goto(`${t.url}/widget/emandate/${token}`);
      // Signed without ticking the consent box or typing a name.
      await browserPage.getByRole('button', { name: 'Sign mandate' }).click();
      await browserPage.locator('#error-summary').waitFor();
      const focused = await browserPage.evaluate<string>(
        "document.activeElement ? document.activeElement.id + ' ' + document.activeElement.getAttribute('tabindex') : ''",
      );
      expect(focused).toBe('error-summary -1');
    });
  });
});
