import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserSetup } from './browser.fixtures.ts';
import { NORTHWIND, createPageMandate, mandateBody, readMandate, t, useMandatesService } from './fixtures.ts';

// docs/design/hosted-pages.md, "Testing in a browser": Debian's Chromium signs mandates on the hosted page and in the
// frame the embedding script inserts, on a merchant's page of another site (browser.fixtures.ts). A fresh browser
// context per test; no timed waits.

/** Screenshots for a person to look at (git-ignored). */
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/emandate');

useMandatesService();

const setup = useBrowserSetup('Browser signing', { seller: NORTHWIND });
const { onFreshPage } = setup;

describe('the hosted signing page in a browser', () => {
  it('signs with the keyboard alone, at 320 px wide, and shows the outcome', async () => {
    const token = await createPageMandate(setup.account, mandateBody(setup.start));
    await onFreshPage(
      async (page) => {
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
        expect(
          await page.getByRole('link', { name: /Download the signed mandate/ }).getAttribute('href'),
        ).toBe(`/widget/emandate/download?token=${token}`);
      },
      { width: 320 },
    );
    const mandate = await readMandate(setup.account, token);
    expect(mandate.Status).toBe('signed');
  });

  it('names what is missing when the box is left unticked', async () => {
    const token = await createPageMandate(setup.account, mandateBody(setup.start));
    await onFreshPage(async (page) => {
      await page.goto(`${t.url}/widget/emandate/${token}`);
      await page.getByLabel(/Type your full name/).fill('Thandi Nkosi');
      await page.getByRole('button', { name: 'Sign mandate' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').innerText()).toContain('Tick the box to agree');
    });
    expect((await readMandate(setup.account, token)).Status).toBe('pending_signature');
  });
});

describe('the embedded frame in a browser', () => {
  it('is signed in the frame on the merchant page, which hears onComplete', async () => {
    const token = await setup.embeddedMandate();
    await onFreshPage(async (page) => {
      const frame = await setup.openCheckout(page, token);
      await frame.getByRole('checkbox').check();
      await frame.getByLabel(/Type your full name/).fill('Thandi Nkosi');
      await frame.getByRole('button', { name: 'Sign mandate' }).click();
      await page.waitForFunction('window.completed.length > 0');
      expect(await page.evaluate<unknown[]>('window.completed')).toEqual([{ token }]);
      await frame.getByRole('heading', { name: 'Mandate signed' }).waitFor();
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'embedded-signed.png') });
    });
    expect((await readMandate(setup.account, token)).Status).toBe('signed');
  });

  it('tells the merchant page onError when the signee declines in the frame', async () => {
    const token = await setup.embeddedMandate();
    await onFreshPage(async (page) => {
      const frame = await setup.openCheckout(page, token);
      await frame.getByRole('button', { name: 'Decline' }).click();
      await page.waitForFunction('window.failed.length > 0');
      expect(await page.evaluate<unknown[]>('window.failed')).toEqual([{ token, reason: 'declined' }]);
      expect(await page.evaluate<unknown[]>('window.completed')).toEqual([]);
    });
    expect((await readMandate(setup.account, token)).Status).toBe('rejected');
  });

  it('is refused by frame-ancestors on a page of another origin', async () => {
    // The mandate allows only an origin that is not the merchant page's.
    const token = await setup.embeddedMandate({ AuthDomain: 'https://shop.example' });
    await onFreshPage(async (page) => {
      const refused = page.waitForEvent('console', (message) => message.text().includes('frame-ancestors'));
      await page.goto(`${setup.merchant.origin}/?token=${token}`);
      expect((await refused).text()).toContain('https://shop.example');
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(
        await frame
          ?.locator('form')
          .count()
          .catch(() => 0),
      ).toBe(0);
      expect(await page.evaluate<unknown[]>('window.completed')).toEqual([]);
    });
  });
});
