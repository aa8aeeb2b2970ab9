import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createPlan, ok, subscribe } from '../helpers/billing.ts';
import { expectAccessible, newPage, shot, signIn as signInAt, useBrowser } from './browser.ts';
import { START, clock, customerWithLogin, portalPath, t, usePortalService } from './fixtures.ts';

/**
 * What customers may change (docs/portal.md), in Debian's Chromium: cancelling at the end of the period with its
 * confirmation, changing package after its preview, editing billing details; axe on every page in the light and the
 * dark scheme, and the pages 320 pixels wide (test/portal/browser.ts).
 */

usePortalService();

interface PageGlobals {
  document: { activeElement: { id: string } | null; documentElement: { scrollWidth: number } };
}

useBrowser();

const pageWidth = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth);

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await signInAt(page, `${t.url}${await portalPath()}`, username, password);
  await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
}

describe('what customers may change, in a browser', () => {
  it('cancels at period end, changes package after the preview, and edits billing details', async () => {
    const basic = await createPlan(t, { chargePrice: 31 });
    const pro = await createPlan(t, { chargePrice: 62 });
    await ok(t, 'PUT', '/v1/account', { PortalSwitchPackageIDs: [pro.packageId] });
    const login = await customerWithLogin();
    clock.set('2026-03-01T10:00:00.000Z');
    const kept = await subscribe(t, login.customerId, basic, { StartDate: '2026-03-01' });
    const ending = await subscribe(t, login.customerId, basic, { StartDate: '2026-03-01' });
    clock.set(START);

    const { context, page } = await newPage();
    await signIn(page, login.username, login.password);

    await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Subscriptions');
    expect(await page.locator('table').innerText()).toContain('USD 31.00 excl. tax every month');
    await expectAccessible(page, 'subscriptions');
    await shot(page, 'subscriptions');

    // Cancel one at the end of its period: a reason, then the confirmation that names the day.
    await page.goto(`${t.url}${await portalPath()}subscriptions/${ending.subscriptionID}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id))
      .toBe('errors');
    expect(await page.getByRole('alert').innerText()).toContain('Choose why you are cancelling');
    await expectAccessible(page, 'cancel refused');
    await shot(page, 'subscription-cancel-error');
    await page.getByLabel('Why are you cancelling?').selectOption({ label: 'It costs too much' });
    await page.getByLabel('Anything you would like to add (optional)').fill('Budget cut for Q2');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Cancel');
    expect(await page.locator('main').innerText()).toContain('until 2026-04-01');
    await expectAccessible(page, 'cancel confirmation');
    await shot(page, 'subscription-cancel-confirm');
    await page.getByRole('button', { name: 'Cancel on 2026-04-01' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('set to end');
    expect((await ok(t, 'GET', `/v1/subscriptions/${ending.subscriptionID}`)).CancelDate.slice(0, 10)).toBe(
      '2026-04-01',
    );
    await expectAccessible(page, 'cancelled');
    await shot(page, 'subscription-cancelled');

    // Change the other to the allowed package, seeing the preview first.
    await page.goto(`${t.url}${await portalPath()}subscriptions/${kept.subscriptionID}`);
    await expectAccessible(page, 'subscription');
    await shot(page, 'subscription');
    await page.getByRole('radio').first().check();
    await page.getByRole('button', { name: 'See the price of the change' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Change');
    const figures = await page.locator('.figures').innerText();
    // 17 of March's 31 days left: USD 17.00 credited, 17/31 of 62.00 = 34.00 charged, 17.00 due.
    expect(figures).toContain('USD 17.00');
    expect(figures).toContain('USD 34.00');
    await expectAccessible(page, 'change preview');
    await shot(page, 'subscription-change-preview');
    // A day passes before the confirmation: the amounts moved, so the new preview comes back instead.
    clock.set('2026-03-16T10:00:00.000Z');
    try {
      await page.getByRole('button', { name: 'Confirm the change' }).click();
      await expect
        .poll(() => page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id))
        .toBe('errors');
      expect(await page.getByRole('alert').innerText()).toContain('The amounts changed since you looked');
      // 16 days left: USD 16.00 credited, 32.00 charged, 16.00 due.
      expect(await page.locator('.figures').innerText()).toContain('USD 32.00');
      expect((await ok(t, 'GET', `/v1/subscriptions/${kept.subscriptionID}`)).packageID).toBe(
        basic.packageId,
      );
      await expectAccessible(page, 'change moved');
      await shot(page, 'subscription-change-moved');
      await page.getByRole('button', { name: 'Confirm the change' }).click();
      await expect.poll(() => page.getByRole('status').innerText()).toContain('was changed');
    } finally {
      clock.set(START);
    }
    expect((await ok(t, 'GET', `/v1/subscriptions/${kept.subscriptionID}`)).packageID).toBe(pro.packageId);

    // Billing details: a refused value first, then saved.
    await page.getByRole('link', { name: 'Billing details' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Billing details');
    expect(await page.getByLabel('Postal code').getAttribute('autocomplete')).toBe('postal-code');
    await expectAccessible(page, 'details');
    await page.getByLabel('Company').fill('Analytical Engines Ltd');
    await page.getByLabel('City').fill('London');
    await page.getByLabel('Your e-mail address').fill('not an address');
    await page.getByRole('button', { name: 'Save billing details' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id))
      .toBe('errors');
    expect(await page.getByRole('alert').innerText()).toContain(
      'Your e-mail address must be an e-mail address',
    );
    await expectAccessible(page, 'details refused');
    await shot(page, 'details-error');
    // A new address asks for the current password; without it nothing is saved.
    await page.getByLabel('Your e-mail address').fill('ada.accounts@example.com');
    await page.getByRole('button', { name: 'Save billing details' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Enter your current password');
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id)).toBe(
      'errors',
    );
    expect(await page.getByLabel('Current password').getAttribute('autocomplete')).toBe('current-password');
    expect((await ok(t, 'GET', `/v1/customers/${login.customerId}`)).Company).toBeNull();
    await expectAccessible(page, 'details password refused');
    await shot(page, 'details-password-error');
    await page.getByLabel('Current password').fill(login.password);
    await page.getByRole('button', { name: 'Save billing details' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('saved');
    await shot(page, 'details-saved');
    const customer = await ok(t, 'GET', `/v1/customers/${login.customerId}`);
    expect(customer).toMatchObject({ Company: 'Analytical Engines Ltd', City: 'London' });
    expect((await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`)).Email).toBe(
      'ada.accounts@example.com',
    );
    await context.close();
    await ok(t, 'PUT', '/v1/account', { PortalSwitchPackageIDs: [] });
    // Some twenty pages, each checked by axe in two schemes, on a shared machine.
  }, 120_000);

  it('is usable 320 pixels wide', async () => {
    const plan = await createPlan(t, { chargePrice: 1234.56 });
    const login = await customerWithLogin();
    const sub = await subscribe(t, login.customerId, plan);
    const { context, page } = await newPage({ width: 320 });
    await signIn(page, login.username, login.password);
    for (const [name, address] of [
      ['subscriptions-320', 'subscriptions'],
      ['subscription-320', `subscriptions/${sub.subscriptionID}`],
      ['details-320', 'details'],
    ] as const) {
      await page.goto(`${t.url}${await portalPath()}${address}`);
      // Only tables, each scrolling in its own region, may be wider than the screen.
      expect(await pageWidth(page), name).toBeLessThanOrEqual(320);
      await expectAccessible(page, name);
      await shot(page, name);
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${t.url}${await portalPath()}subscriptions/${sub.subscriptionID}`);
    await shot(page, 'subscription-320-dark');
    await context.close();
  });
});
