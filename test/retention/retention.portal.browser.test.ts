import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createPlan, ok, subscribe } from '../helpers/billing.ts';
import { expectAccessible, newPage, shot, signIn as signInAt, useBrowser } from '../portal/browser.ts';
import { START, clock, customerWithLogin, portalPath, t, usePortalService } from '../portal/fixtures.ts';

/**
 * Cancel with a way to stay (docs/portal.md), in Debian's Chromium: a reason that offers a retention coupon, taken
 * instead of cancelling; a reason that offers a cheaper package, declined with "Cancel anyway". Axe on each page in
 * the light and the dark scheme (test/portal/browser.ts).
 */

usePortalService();
useBrowser();

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await signInAt(page, `${t.url}${await portalPath()}`, username, password);
  await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
}

/** The account's rules: a 50 % retention coupon for "too expensive", a USD 20.00 plan for "we hardly use it". */
async function retentionRules() {
  const full = await createPlan(t, { chargePrice: 31 });
  const cheaper = await createPlan(t, { chargePrice: 20 });
  const coupon = await ok(t, 'POST', '/v1/coupons', {
    Code: 'STAY50',
    Name: 'Half off to stay',
    PercentOff: 50,
    Duration: 'once',
    IsRetention: true,
  });
  await ok(
    t,
    'PUT',
    '/v1/account/retention',
    {
      Reasons: [
        {
          Code: 'too_expensive',
          Label: 'It costs too much',
          Offers: [{ Kind: 'coupon', couponID: coupon.couponID }],
        },
        {
          Code: 'not_using',
          Label: 'We hardly use it',
          Offers: [{ Kind: 'package', packageID: cheaper.packageId, packageRateTermID: cheaper.rateTermId }],
        },
        { Code: 'other', Label: 'Another reason' },
      ],
    },
    200,
  );
  return { full, cheaper };
}

describe('cancel with a way to stay, in a browser', () => {
  it('takes a retention coupon instead of cancelling, and declines a package to cancel anyway', async () => {
    const { full, cheaper } = await retentionRules();
    const login = await customerWithLogin();
    clock.set('2026-03-01T10:00:00.000Z');
    const stays = await subscribe(t, login.customerId, full, { StartDate: '2026-03-01' });
    const leaves = await subscribe(t, login.customerId, full, { StartDate: '2026-03-01' });
    clock.set(START);
    const { context, page } = await newPage();
    await signIn(page, login.username, login.password);
    const base = `${t.url}${await portalPath()}`;

    // The first: too expensive, offered 50 % off the next invoice, taken.
    await page.goto(`${base}subscriptions/${stays.subscriptionID}`);
    await page.getByLabel('Why are you cancelling?').selectOption({ label: 'It costs too much' });
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Before you cancel');
    const offer = await page.locator('main').innerText();
    expect(offer).toContain('Stay and get 50 % off');
    expect(offer).toContain('until 2026-04-01');
    await expectAccessible(page, 'retention coupon offer');
    await shot(page, 'retention-coupon-offer');
    await page.getByRole('button', { name: 'Take it' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Your coupon was applied');
    // The next invoice, 1 April: April's 31.00 − 50 % = 31.00 − 15.50 = 15.50 (no tax on the account).
    const kept = await page.locator('main').innerText();
    expect(kept).toContain('USD 15.50 incl. tax on 2026-04-01');
    expect(kept).toContain('STAY50: Half off to stay, on the next invoice');
    expect(kept).toContain('Cancel at the end of the period');
    await expectAccessible(page, 'retention coupon taken');
    await shot(page, 'retention-coupon-taken');
    const stayed = await ok(t, 'GET', `/v1/subscriptions/${stays.subscriptionID}`);
    expect([stayed.CancelDate, stayed.CancelReason]).toEqual([null, null]);
    expect((await ok(t, 'GET', `/v1/subscriptions/${stays.subscriptionID}/upcoming-invoice`)).Total).toBe(
      15.5,
    );

    // The second: hardly used, offered the USD 20.00 plan, declined: cancelled at the end of March's period.
    await page.goto(`${base}subscriptions/${leaves.subscriptionID}`);
    await page.getByLabel('Why are you cancelling?').selectOption({ label: 'We hardly use it' });
    await page.getByLabel('Anything you would like to add (optional)').fill('Team shrank');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Before you cancel');
    expect(await page.locator('main').innerText()).toContain(
      `Keep your subscription on ${cheaper.name} at USD 20.00 excl. tax every month, from your next renewal`,
    );
    await expectAccessible(page, 'retention package offer');
    await shot(page, 'retention-package-offer');
    await page.getByRole('button', { name: 'Cancel anyway' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('set to end');
    const left = await ok(t, 'GET', `/v1/subscriptions/${leaves.subscriptionID}`);
    expect([left.CancelType, left.CancelDate.slice(0, 10), left.CancelReason, left.packageID]).toEqual([
      'renewal',
      '2026-04-01',
      'not_using',
      full.packageId,
    ]);
    await expectAccessible(page, 'cancelled anyway');
    await context.close();
  });
});
