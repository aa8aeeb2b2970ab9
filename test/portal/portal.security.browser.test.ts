import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { USERNAME_FAILURES } from '../../src/modules/portal/index.ts';
import { expectAccessible, newPage, scrollsSideways, shot, useBrowser } from './browser.ts';
import { PortalClient, customerWithLogin, portalPath, t, usePortalService, wallClock } from './fixtures.ts';

/**
 * The pages the portal's security limits answer with (docs/portal.md, "Sign-in, sessions and passwords"), in
 * Debian's Chromium with axe in the light and the dark scheme, at 1000 and 320 px (test/portal/browser.ts).
 */

usePortalService();

useBrowser();

/** Screenshots at 1000 px, and at 320 px with nothing wider than the screen. */
async function shots(page: Page, name: string): Promise<void> {
  await shot(page, name);
  await page.setViewportSize({ width: 320, height: 700 });
  await shot(page, `${name}-320`);
  expect(await scrollsSideways(page)).toBe(false);
  await page.setViewportSize({ width: 1000, height: 900 });
}

const focusedId = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement
        ?.id,
  );

describe('the limits as a customer meets them', () => {
  it('pauses the change-password form after wrong current passwords, with the error summary focused', async () => {
    const login = await customerWithLogin();
    const { context, page } = await newPage();
    await page.goto(`${t.url}${await portalPath()}login`);
    await page.getByLabel('Username').fill(login.username);
    await page.getByLabel('Password').fill(login.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
    for (let i = 0; i < USERNAME_FAILURES; i++) {
      await page.goto(`${t.url}${await portalPath()}password`);
      await page.getByLabel('Current password').fill(`wrong${i}pass`);
      await page.getByLabel('New password', { exact: true }).fill('brand2new');
      await page.getByLabel('New password again').fill('brand2new');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.waitForLoadState();
    }
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Try again after');
    expect(await focusedId(page)).toBe('errors');
    await expectAccessible(page, 'password paused');
    await shots(page, 'security-password-paused');
    await context.close();
    wallClock.advance(16 * 60_000);
  });

  it('answers a 31st form in a minute from one address with a page saying to wait', async () => {
    const client = new PortalClient(await portalPath(), t.url);
    const csrf = await client.csrfOf(`${client.base}reset`);
    for (let i = 0; i < 30; i++) await client.post(`${client.base}reset`, { csrf, username: '' });
    const { context, page } = await newPage();
    await page.goto(`${t.url}${client.base}reset`);
    await page.getByLabel('Username').fill('someone');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Too many requests');
    await expectAccessible(page, 'too many requests');
    await shots(page, 'security-too-many-requests');
    await context.close();
    wallClock.advance(61_000);
  });
});
