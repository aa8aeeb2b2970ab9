import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FrameLocator, Page } from 'playwright-core';
import { analyzeWithFrame, checkedInsideFrame } from '../helpers/axe.ts';
import { createSession, t, useWidgetService } from './fixtures.ts';
import {
  SCREENSHOTS,
  browser,
  merchantOrigin,
  serve,
  told,
  useMerchantAndBrowser,
} from './browserFixtures.ts';

/**
 * The capture widget's accessibility (docs/design/hosted-pages.md, "Testing in a browser"): axe on the merchant's
 * page with the frame in it (AxeBuilder analyses frames too) in each state a shopper meets, and the frame at a
 * phone's width.
 */

useWidgetService();
useMerchantAndBrowser('capture-a11y-screens');

/** Every violation printed; the test fails on any serious or critical one. */
async function expectAccessible(page: Page, state: string): Promise<void> {
  const results = await analyzeWithFrame(page);
  const { violations } = results;
  expect(checkedInsideFrame(results), 'axe checked nothing inside the frame').toBe(true);
  for (const violation of violations) {
    console.log(
      `[axe, ${state}] ${violation.impact} ${violation.id}: ${violation.help}\n` +
        violation.nodes.map((node) => `  ${node.target.join(' ')}: ${node.failureSummary ?? ''}`).join('\n'),
    );
  }
  const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    severe.map((v) => `${v.id} (${v.nodes.length})`),
    state,
  ).toEqual([]);
}

async function open(
  name: string,
  body: Record<string, unknown> = {},
): Promise<{ page: Page; frame: FrameLocator }> {
  const session = await createSession(t, { AuthDomain: merchantOrigin(), ...body });
  const page = await browser.newPage();
  await page.goto(`${merchantOrigin()}${serve(name, session.Html)}`);
  await told(page, 'widget.ready');
  return { page, frame: page.frameLocator('iframe[title="Payment details"]') };
}

describe('the capture widget’s accessibility', () => {
  it('has no serious violation in the initial state, with errors shown, and in the challenge', async () => {
    const { page, frame } = await open('a11y', {
      SaleType: 'VaultSale',
      Amount: 30,
      isVaultOnlyOnSuccess: true,
    });
    await expectAccessible(page, 'initial');

    // Every field empty: each named, marked invalid, and described by its error.
    await frame.getByRole('button', { name: 'Pay 30.00 USD' }).click();
    await told(page, 'capture.failed');
    for (const [label, id] of [
      ['Card number', 'number'],
      ['Expiry', 'expiry'],
      ['Security code', 'securityCode'],
      ['Name on card', 'name'],
    ] as const) {
      const field = frame.getByLabel(label, { exact: true });
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await field.getAttribute('aria-describedby')).toBe(`${id}-error`);
      expect(await frame.locator(`#${id}-error`).innerText()).toMatch(/^Enter the /);
    }
    // Announced, and focus on the first field to fill in.
    expect(await frame.getByRole('status').innerText()).toBe('Fill in the 4 fields marked.');
    expect(await frame.locator(':focus').getAttribute('id')).toBe('number');
    await expectAccessible(page, 'errors');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'errors.png'), fullPage: true });

    await frame.getByLabel('Card number').fill('4000 0025 0000 3155');
    await frame.getByLabel('Expiry').fill('12/29');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    await frame.getByRole('button', { name: 'Pay 30.00 USD' }).click();
    await frame.getByRole('region', { name: 'Confirm this payment' }).waitFor();
    await expectAccessible(page, 'challenge');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'challenge.png'), fullPage: true });
    await page.close();
  });

  it('names the frame as its document is titled, announces status politely, and paints an opaque background', async () => {
    const { page, frame } = await open('a11y-frame');
    const title = await page.locator('iframe').getAttribute('title');
    expect(await frame.locator('title').textContent()).toBe(title);
    expect(await frame.getByRole('status').getAttribute('role')).toBe('status');
    const background = await frame
      .locator('body')
      .evaluate((body) => body.ownerDocument.defaultView!.getComputedStyle(body).backgroundColor);
    expect(background).toBe('rgb(255, 255, 255)');
    // Tab order follows the form: the fields, then the button.
    await frame.getByLabel('Card number').focus();
    const order: string[] = [];
    for (let step = 0; step < 4; step++) {
      await page.keyboard.press('Tab');
      order.push(
        (await frame.locator(':focus').getAttribute('id')) ?? (await frame.locator(':focus').innerText()),
      );
    }
    expect(order).toEqual(['expiry', 'securityCode', 'name', 'Save card']);
    await page.close();
  });

  it('fits a 320-pixel-wide screen without sideways scrolling, with every field in view', async () => {
    const session = await createSession(t, { AuthDomain: merchantOrigin() });
    const page = await browser.newPage();
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto(`${merchantOrigin()}${serve('narrow', session.Html)}`);
    await told(page, 'widget.ready');
    const frame = page.frameLocator('iframe[title="Payment details"]');
    const widget = page.frames().find((f) => f.url().startsWith(t.url))!;
    const overflow = () =>
      widget.evaluate(() => {
        type Root = { scrollWidth: number; clientWidth: number; scrollHeight: number };
        const root = (globalThis as unknown as { document: { scrollingElement: Root } }).document
          .scrollingElement;
        return {
          scrollWidth: root.scrollWidth,
          clientWidth: root.clientWidth,
          scrollHeight: root.scrollHeight,
        };
      });
    const { scrollWidth, clientWidth } = await overflow();
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    for (const label of ['Card number', 'Expiry', 'Security code', 'Name on card']) {
      await expect.poll(() => frame.getByLabel(label, { exact: true }).isVisible()).toBe(true);
      const box = (await frame.getByLabel(label, { exact: true }).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(320);
    }
    await page.screenshot({ path: path.join(SCREENSHOTS, 'narrow.png'), fullPage: true });
    // With every error shown, still no sideways scroll.
    await frame.getByRole('button', { name: 'Save card' }).click();
    await told(page, 'capture.failed');
    const after = await overflow();
    expect(after.scrollWidth).toBeLessThanOrEqual(after.clientWidth);
    // The frame grew to show every error and the button: nothing is cut off at its foot.
    const frameHeight = (await page.locator('iframe').boundingBox())!.height;
    expect(frameHeight).toBeGreaterThanOrEqual(after.scrollHeight);
    await expect.poll(() => frame.getByRole('button', { name: 'Save card' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'narrow-errors.png'), fullPage: true });
    console.log(`[a11y] screenshots in ${SCREENSHOTS}`);
    await page.close();
  });

  it('shows the challenge whole at 320 pixels wide', async () => {
    const session = await createSession(t, {
      AuthDomain: merchantOrigin(),
      SaleType: 'VaultSale',
      Amount: 30,
      isVaultOnlyOnSuccess: true,
    });
    const page = await browser.newPage();
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto(`${merchantOrigin()}${serve('narrow-challenge', session.Html)}`);
    await told(page, 'widget.ready');
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Card number').fill('4000 0025 0000 3155');
    await frame.getByLabel('Expiry').fill('12/29');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    await frame.getByRole('button', { name: 'Pay 30.00 USD' }).click();
    await told(page, 'capture.challenge');
    const widget = page.frames().find((f) => f.url().startsWith(t.url))!;
    const size = await widget.evaluate(() => {
      type Root = { scrollWidth: number; clientWidth: number };
      const root = (globalThis as unknown as { document: { scrollingElement: Root } }).document
        .scrollingElement;
      return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
    });
    expect(size.scrollWidth).toBeLessThanOrEqual(size.clientWidth);
    for (const name of ['Approve', 'Fail']) {
      const box = (await frame.getByRole('button', { name }).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(320);
    }
    await page.screenshot({ path: path.join(SCREENSHOTS, 'narrow-challenge.png'), fullPage: true });
    await page.close();
  });
});
