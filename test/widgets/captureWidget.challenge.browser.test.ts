import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FrameLocator, Page } from 'playwright-core';
import { ok } from '../helpers/billing.ts';
import { createSession, t, useWidgetService } from './fixtures.ts';
import {
  SCREENSHOTS,
  browser,
  events,
  merchantOrigin,
  serve,
  told,
  useMerchantAndBrowser,
} from './browserFixtures.ts';

/**
 * The frame's answers a shopper acts on, in Chromium: the simulated 3-D Secure challenge (docs/design/
 * hosted-pages.md, "3-D Secure in the frame") approved and failed, and a declined card tried again.
 */

useWidgetService();
useMerchantAndBrowser('capture-challenge-screens');

/** docs/gateways.md, "The test gateway's cards". */
const NEEDS_AUTHENTICATION = '4000 0025 0000 3155';
const DECLINED = '4000 0000 0000 0002';

async function open(
  name: string,
  body: Record<string, unknown>,
): Promise<{ page: Page; frame: FrameLocator }> {
  const session = await createSession(t, { AuthDomain: merchantOrigin(), ...body });
  const page = await browser.newPage();
  await page.goto(`${merchantOrigin()}${serve(name, session.Html)}`);
  return { page, frame: page.frameLocator('iframe[title="Payment details"]') };
}

async function fillCard(frame: FrameLocator, number: string): Promise<void> {
  await frame.getByLabel('Card number').fill(number);
  await frame.getByLabel('Expiry').fill('12/29');
  await frame.getByLabel('Security code').fill('123');
  await frame.getByLabel('Name on card').fill('Ada Lovelace');
}

const SALE = { SaleType: 'VaultSale', Amount: 30, isVaultOnlyOnSuccess: true, Description: 'Pro plan' };

describe('the 3-D Secure challenge in the frame', () => {
  it('approved with the keyboard, completes the payment', async () => {
    const { page, frame } = await open('challenge-approve', SALE);
    await fillCard(frame, NEEDS_AUTHENTICATION);
    await frame.getByRole('button', { name: 'Pay 30.00 USD' }).click();

    const panel = frame.getByRole('region', { name: 'Confirm this payment' });
    await panel.waitFor();
    // Focus is moved to the panel, and the status announces it.
    await expect.poll(() => panel.evaluate((node) => node === node.ownerDocument.activeElement)).toBe(true);
    expect(await frame.getByRole('status').innerText()).toBe('Your bank asks you to confirm this payment.');
    expect(await panel.innerText()).toContain('Visa ending in 3155');
    expect(await panel.innerText()).toContain('30.00 USD');
    expect(await frame.locator('#card-form').isHidden()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'challenge.png'), fullPage: true });

    // Tab reaches Approve first; Enter presses it.
    await page.keyboard.press('Tab');
    expect(await frame.locator(':focus').innerText()).toBe('Approve');
    await page.keyboard.press('Enter');
    await told(page, 'capture.completed');
    await expect.poll(() => frame.getByRole('status').innerText()).toBe('Payment made: Visa ending in 3155.');
    expect(await panel.isHidden()).toBe(true);
    const seen = await events(page);
    expect(seen.map((e) => e.type)).toEqual([
      'widget.ready',
      'capture.submitting',
      'capture.challenge',
      'capture.completed',
    ]);
    expect(seen[3]!.detail).toMatchObject({ last4: '3155', charged: true });
    expect(JSON.stringify(seen)).not.toMatch(/\d{12,}|[0-9a-f]{32}/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'challenge-approved.png'), fullPage: true });
    await page.close();
  });

  it('failed, shows why, takes the shopper back to the card, and another card then pays', async () => {
    const { page, frame } = await open('challenge-fail', SALE);
    await fillCard(frame, NEEDS_AUTHENTICATION);
    await frame.getByRole('button', { name: 'Pay 30.00 USD' }).click();
    await frame.getByRole('button', { name: 'Fail' }).click();

    await told(page, 'capture.failed');
    await expect
      .poll(() => frame.locator('#number-error').innerText())
      .toBe('Your bank did not confirm the payment');
    expect(await frame.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    expect(await frame.getByRole('status').innerText()).toContain('4 attempts left');
    expect(await frame.getByRole('region', { name: 'Confirm this payment' }).count()).toBe(0);
    // Focus is back on the field to correct.
    await expect.poll(() => frame.locator(':focus').getAttribute('id')).toBe('number');
    expect((await events(page)).find((e) => e.type === 'capture.failed')?.detail).toEqual({
      reason: 'refused',
      attemptsLeft: 4,
    });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'challenge-failed.png'), fullPage: true });

    await fillCard(frame, '4242 4242 4242 4242');
    await frame.getByRole('button', { name: 'Pay 30.00 USD' }).click();
    await told(page, 'capture.completed');
    await expect.poll(() => frame.getByRole('status').innerText()).toBe('Payment made: Visa ending in 4242.');
    await page.close();
  });
});

describe('a declined card in the frame', () => {
  it('is shown as declined, and a good card then succeeds in the same session', async () => {
    const session = await createSession(t, { AuthDomain: merchantOrigin() });
    const page = await browser.newPage();
    await page.goto(`${merchantOrigin()}${serve('declined', session.Html)}`);
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await fillCard(frame, DECLINED);
    await frame.getByRole('button', { name: 'Save card' }).click();
    await told(page, 'capture.failed');
    await expect.poll(() => frame.locator('#number-error').innerText()).toBe('The card was declined');
    expect(await frame.getByRole('status').innerText()).toContain('4 attempts left');
    // The security code is asked again; the rest stays as typed.
    expect(await frame.getByLabel('Security code').inputValue()).toBe('');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'declined.png'), fullPage: true });

    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByRole('button', { name: 'Save card' }).click();
    await told(page, 'capture.completed');
    await expect.poll(() => frame.getByRole('status').innerText()).toBe('Card saved: Visa ending in 4242.');
    expect(
      (await frame.getByLabel('Card number').count()) === 0 || (await frame.locator('#card-form').isHidden()),
    ).toBe(true);
    const read = await ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(read.State).toBe('captured');
    expect((await events(page)).map((e) => e.type)).toEqual([
      'widget.ready',
      'capture.submitting',
      'capture.failed',
      'capture.submitting',
      'capture.completed',
    ]);
    await page.close();
  });
});
