import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { expectAccessible, newPage, scrollsSideways, shot, signIn, useBrowser } from './browser.ts';
import { customerWithLogin, portalPath, t, usePortalService } from './fixtures.ts';

/**
 * Prepaid credit in the portal as a customer uses it (docs/portal.md, "Prepaid credit"): Debian's Chromium reads
 * the credit page, is refused a bad amount, buys credit, pays its invoice with a new card in the capture widget's
 * frame and sees the balance rise; axe on every page in both schemes (test/portal/browser.ts). The figures of
 * grants, consumption and expiry are checked over HTTP in portal.credit.test.ts.
 */

usePortalService();

useBrowser();

describe('prepaid credit in the portal, in a browser', () => {
  it('shows the wallet, refuses a bad amount, and buys credit paid with a new card', async () => {
    const login = await customerWithLogin(t, { name: 'Mary' });
    const wallet = await ok(t, 'POST', `/v1/customers/${login.customerId}/wallets`, {
      CurrencyCode: 'USD',
      Name: 'Launch credit',
    });
    await ok(t, 'POST', `/v1/wallets/${wallet.walletID}/grants`, {
      Amount: 25,
      ExpiresAt: '2026-06-30',
      Note: 'Welcome credit',
    });
    const base = `${t.url}${await portalPath()}`;
    const { context, page } = await newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await signIn(page, base, login.username, login.password);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Mary');
    expect(await page.locator('.figures').innerText()).toContain('USD 25.00');
    await page.getByRole('link', { name: 'Credit', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Launch credit');
    expect(await page.locator('.figures').innerText()).toMatch(/Balance\s+USD 25\.00/);
    await expectAccessible(page, 'credit page');
    await shot(page, 'credit');

    // A bad amount: said next to the field, focused, and nothing bought.
    await page.getByLabel('Amount of credit (USD)').fill('12.345');
    await page.getByRole('button', { name: 'Buy credit and pay' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Enter at most 2 decimals');
    await expectAccessible(page, 'amount refused');
    await shot(page, 'credit-refused');
    expect(await ok(t, 'GET', `/v1/customers/${login.customerId}/invoices`)).toEqual([]);

    await page.getByLabel('Amount of credit (USD)').fill('60');
    await page.getByRole('button', { name: 'Buy credit and pay' }).click();
    // No card yet: the invoice is paid with a new card, through the gateway's fields in the widget's frame.
    await expect.poll(() => page.locator('h1').innerText()).toMatch(/^Pay invoice \d+ with a new card$/);
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/31');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Mary Jackson');
    await shot(page, 'credit-pay-card');
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you: your payment was received');
    expect(await page.getByRole('status').first().innerText()).toContain('USD 60.00 paid on 2026-03-15');

    // Paid: the credit is there, bought, beside the 25.00 granted.
    await page.getByRole('link', { name: 'Credit', exact: true }).click();
    await expect.poll(() => page.locator('.figures').innerText()).toMatch(/Balance\s+USD 85\.00/);
    expect(await page.locator('.figures').innerText()).toMatch(/Bought\s+USD 60\.00/);
    const history = await page.getByRole('table', { name: /What added to your credit/ }).innerText();
    expect(history).toMatch(/Bought with invoice \d+\s+\+USD 60\.00/);
    expect(history).toMatch(/Credit granted: Welcome credit\s+\+USD 25\.00/);
    await expectAccessible(page, 'credit bought');
    await shot(page, 'credit-bought');
    expect(await ok(t, 'GET', `/v1/wallets/${wallet.walletID}`)).toMatchObject({
      Balance: 85,
      PaidBalance: 60,
      GrantedBalance: 25,
    });

    // At 320 px the page still reads without scrolling sideways.
    await page.setViewportSize({ width: 320, height: 800 });
    expect(await scrollsSideways(page)).toBe(false);
    await shot(page, 'credit-320');

    expect(pageErrors).toEqual([]);
    await context.close();
  }, 180_000);
});
