import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createPlan, ok, subscribe } from '../helpers/billing.ts';
import { expectAccessible, newPage, shot, signIn as signInAt, useBrowser } from './browser.ts';
import { START, clock, customerWithLogin, portalPath, t, usePortalService } from './fixtures.ts';

/**
 * A coupon entered in the portal (docs/credits.md, "Coupons"), in Debian's Chromium: the form on a subscription's
 * page, a code refused with its message, then one applied and listed; axe on each state (test/portal/browser.ts).
 */

usePortalService();
useBrowser();

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await signInAt(page, `${t.url}${await portalPath()}`, username, password);
  await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
}

describe('coupons in the portal, in a browser', () => {
  it('refuses an unknown code with its message, then applies an offered one', async () => {
    const plan = await createPlan(t, { chargePrice: 31 });
    const login = await customerWithLogin();
    clock.set('2026-03-01T10:00:00.000Z');
    const sub = await subscribe(t, login.customerId, plan, { StartDate: '2026-03-01' });
    clock.set(START);
    await ok(t, 'POST', '/v1/coupons', {
      Code: 'WEB20',
      Name: 'Web offer',
      PercentOff: 20,
      Duration: 'once',
      PortalRedeemable: true,
    });

    const { context, page } = await newPage();
    await signIn(page, login.username, login.password);
    await page.goto(`${t.url}${await portalPath()}subscriptions/${sub.subscriptionID}`);
    await expectAccessible(page, 'subscription with a coupon form');

    await page.getByLabel('Coupon code', { exact: true }).fill('NOSUCH');
    await page.getByRole('button', { name: 'Apply the coupon' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('That coupon code is not valid');
    await expectAccessible(page, 'coupon refused');
    await shot(page, 'subscription-coupon-refused');

    await page.getByLabel('Coupon code', { exact: true }).fill('web20');
    await page.getByRole('button', { name: 'Apply the coupon' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Your coupon was applied');
    expect(await page.locator('main').innerText()).toContain('WEB20: Web offer, on the next invoice');
    await expectAccessible(page, 'coupon applied');
    await shot(page, 'subscription-coupon-applied');
    await context.close();
  });
});
