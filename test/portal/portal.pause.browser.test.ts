import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createPlan, ok, subscribe } from '../helpers/billing.ts';
import { expectAccessible, newPage, shot, signIn as signInAt, useBrowser } from './browser.ts';
import { START, clock, customerWithLogin, portalPath, t, usePortalService } from './fixtures.ts';

/**
 * Pausing in the portal (docs/portal.md, "Pausing"), in Debian's Chromium: a pause within the account's limits
 * picked on the form, seen on its confirmation and made; a resume day beyond MaxPauseDays and a pause beyond
 * MaxPausesPerYear refused, saying why; axe on every page in the light and the dark scheme, screenshots under
 * test-output/portal/ (test/portal/browser.ts).
 */

usePortalService();
useBrowser();

interface PageGlobals {
  document: { activeElement: { id: string } | null };
}

const day = (wire: string | null | undefined) => (wire ? wire.slice(0, 10) : null);

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await signInAt(page, `${t.url}${await portalPath()}`, username, password);
  await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
}

describe('pausing in a browser', () => {
  it('pauses within the limits, and refuses a pause too long or too often', async () => {
    await ok(t, 'PUT', '/v1/account', { PortalPause: true, MaxPauseDays: 30, MaxPausesPerYear: 1 });
    const plan = await createPlan(t, { chargePrice: 31 });
    const login = await customerWithLogin();
    clock.set('2026-03-01T10:00:00.000Z');
    const sub = await subscribe(t, login.customerId, plan, { StartDate: '2026-03-01' });
    clock.set(START);
    const id = sub.subscriptionID as number;
    const pauseOf = async () => {
      const s = await ok(t, 'GET', `/v1/subscriptions/${id}`);
      return [s.comp_Status, day(s.PauseDate), day(s.ResumeDate)];
    };

    const { context, page } = await newPage();
    await signIn(page, login.username, login.password);
    await page.goto(`${t.url}${await portalPath()}subscriptions/${id}`);
    await page.getByRole('link', { name: 'Pause this subscription' }).click();

    // 15 Mar: 1 Mar – 1 Apr is billed, so the pause starts on 1 Apr; 30 days at most: 1 May at the latest.
    await expect.poll(() => page.locator('h1').innerText()).toBe(`Pause ${plan.name}`);
    expect(await page.locator('main').innerText()).toContain('Your pause starts on 2026-04-01');
    expect(await page.getByLabel('Resume on').inputValue()).toBe('2026-05-01');
    await expectAccessible(page, 'pause form');
    await shot(page, 'pause-form');

    // Beyond MaxPauseDays: 15 May is 44 days after 1 Apr. Refused, saying the latest day; nothing is paused.
    await page.getByLabel('Resume on').fill('2026-05-15');
    await page.getByRole('button', { name: 'See the pause' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id))
      .toBe('errors');
    expect(await page.getByRole('alert').innerText()).toContain(
      'must be at most 30 days after the pause starts (2026-04-01): on or before 2026-05-01',
    );
    expect(await pauseOf()).toEqual(['Active', null, null]);
    await expectAccessible(page, 'pause too long');
    await shot(page, 'pause-too-long');

    // Within it: 20 Apr. The confirmation says when it starts, resumes and the next invoice (31.00 on 20 Apr).
    await page.getByLabel('Resume on').fill('2026-04-20');
    await page.getByRole('button', { name: 'See the pause' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe(`Pause ${plan.name}?`);
    const figures = await page.locator('.figures').innerText();
    expect(figures).toContain('2026-04-01');
    expect(figures).toContain('2026-04-20');
    expect(figures).toContain('USD 31.00 incl. tax on 2026-04-20');
    expect(await pauseOf()).toEqual(['Active', null, null]);
    await expectAccessible(page, 'pause confirmation');
    await shot(page, 'pause-confirm');
    await page.getByRole('button', { name: 'Pause until 2026-04-20' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Your pause is set');
    expect(await pauseOf()).toEqual(['Active', '2026-04-01', '2026-04-20']);
    expect(await page.locator('main').innerText()).toContain(
      'A pause of this subscription starts on 2026-04-01 until 2026-04-20',
    );
    await expectAccessible(page, 'paused');
    await shot(page, 'pause-made');

    // Resume now, before the pause starts: it is withdrawn.
    await page.getByRole('button', { name: 'Resume now' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('no longer paused');
    expect((await pauseOf())[0]).toBe('Active');

    // Beyond MaxPausesPerYear: one pause was made today, so another is refused, saying why.
    await page.getByRole('link', { name: 'Pause this subscription' }).click();
    await expect
      .poll(() => page.locator('h1').innerText())
      .toBe('This subscription cannot be paused again yet');
    expect(await page.locator('main').innerText()).toContain(
      'at most once in 365 days, and this one was paused once in that time. Nothing was paused.',
    );
    await expectAccessible(page, 'pause limit reached');
    await shot(page, 'pause-limit');
    await context.close();
  });
});
