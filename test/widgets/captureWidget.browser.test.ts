import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { clock, complete, createSession, t, useWidgetService } from './fixtures.ts';
import {
  SCREENSHOTS,
  browser,
  events,
  merchantPortOf,
  serve,
  serveRaw,
  useMerchantAndBrowser,
} from './browserFixtures.ts';

// The capture widget as a customer meets it (test/widgets/browserFixtures.ts).

useWidgetService();
useMerchantAndBrowser('capture-widget-screens');

describe('the capture widget in a browser', () => {
  it('captures a card on the merchant’s page, which the merchant’s server then completes', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const session = await createSession(t, { AuthDomain: origin, Description: 'Pro plan' });
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${origin}${serve('checkout', session.Html)}`);

    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/29');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'filled.png'), fullPage: true });
    await frame.getByRole('button', { name: 'Save card' }).click();

    await page.waitForFunction(() =>
      (globalThis as unknown as { widgetEvents: { type: string }[] }).widgetEvents.some(
        (e) => e.type === 'capture.completed',
      ),
    );
    await expect
      .poll(() => frame.getByRole('status').innerText())
      .toContain('Card saved: Visa ending in 4242');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'captured.png'), fullPage: true });
    const seen = await events(page);
    expect(seen.map((e) => e.type)).toEqual(['widget.ready', 'capture.submitting', 'capture.completed']);
    expect(seen[2]!.detail).toEqual({
      type: 'card',
      brand: 'Visa',
      last4: '4242',
      expiryMonth: 12,
      expiryYear: 2029,
      charged: false,
    });
    // Never a token or a card number in what the page is told.
    const told = JSON.stringify(seen);
    expect(told).not.toMatch(/\d{12,}/);
    expect(told).not.toContain(session.HashToken);
    expect(pageErrors).toEqual([]);

    const customerId = await createCustomer(t);
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const read = await ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(read.State).toBe('completed');
    const method = await ok(t, 'GET', `/v1/paymentmethods/${read.paymentMethodID}`);
    expect(method.CreditCard).toMatchObject({ CardType: 'Visa', LastFourDigits: '4242' });
    await page.close();
  });

  it('shows per-field errors in the frame, and tells the page the attempt failed', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const session = await createSession(t, { AuthDomain: origin });
    const page = await browser.newPage();
    await page.goto(`${origin}${serve('errors', session.Html)}`);
    const frame = page.frameLocator('iframe[title="Payment details"]');
    // A problem only the server sees (the frame checks the number and expiry itself): the security code.
    await frame.getByLabel('Card number').fill('4000000000000002');
    await frame.getByLabel('Expiry').fill('12/29');
    await frame.getByLabel('Security code').fill('12');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    await frame.getByRole('button', { name: 'Save card' }).click();
    await expect
      .poll(() => frame.locator('#securityCode-error').innerText())
      .toBe('Enter the 3-digit security code');
    expect(await frame.getByLabel('Security code').getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'errors.png'), fullPage: true });
    const failed = (await events(page)).find((e) => e.type === 'capture.failed');
    expect(failed?.detail).toEqual({ reason: 'refused', attemptsLeft: 4 });
    await page.close();
  });

  it('checks the number and expiry in the frame: a typo sends nothing and costs no attempt', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const session = await createSession(t, { AuthDomain: origin });
    const page = await browser.newPage();
    const submits: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('/submit')) submits.push(request.url());
    });
    await page.goto(`${origin}${serve('typo', session.Html)}`);
    const frame = page.frameLocator('iframe[title="Payment details"]');
    const lastYear = String((new Date().getFullYear() - 1) % 100).padStart(2, '0');
    const cases = [
      // One digit wrong: the Luhn check fails.
      {
        number: '4242 4242 4242 4241',
        expiry: '12/29',
        field: 'number',
        message: 'Enter a valid card number',
      },
      // Eleven digits that pass Luhn: too short for a card.
      { number: '4242 4242 426', expiry: '12/29', field: 'number', message: 'Enter a valid card number' },
      {
        number: '4242 4242 4242 4242',
        expiry: '13/29',
        field: 'expiry',
        message: 'The month must be 01 to 12',
      },
      {
        number: '4242 4242 4242 4242',
        expiry: `12/${lastYear}`,
        field: 'expiry',
        message: 'The card has expired',
      },
    ];
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    for (const typo of cases) {
      await frame.getByLabel('Card number').fill(typo.number);
      await frame.getByLabel('Expiry').fill(typo.expiry);
      await frame.getByRole('button', { name: 'Save card' }).click();
      const input = frame.locator(`#${typo.field}`);
      await expect.poll(() => frame.locator(`#${typo.field}-error`).innerText()).toBe(typo.message);
      expect(await input.getAttribute('aria-invalid')).toBe('true');
      expect(await input.getAttribute('aria-describedby')).toBe(`${typo.field}-error`);
      expect(await input.evaluate((node) => node === node.ownerDocument.activeElement)).toBe(true);
      expect(await frame.getByRole('status').innerText()).toBe('Check the field marked.');
    }
    // Both wrong: both marked, the first focused.
    await frame.getByLabel('Card number').fill('1234');
    await frame.getByLabel('Expiry').fill('00/30');
    await frame.getByRole('button', { name: 'Save card' }).click();
    await expect.poll(() => frame.getByRole('status').innerText()).toBe('Check the 2 fields marked.');
    expect(await frame.locator('#number').evaluate((n) => n === n.ownerDocument.activeElement)).toBe(true);
    expect(await frame.getByLabel('Expiry').getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'typo.png'), fullPage: true });
    expect(submits).toEqual([]);
    expect((await events(page)).filter((e) => e.type === 'capture.failed')).toHaveLength(5);
    expect((await ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`)).State).toBe(
      'open',
    );

    // Corrected, it goes through on the first request, every attempt still left.
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/29');
    await frame.getByRole('button', { name: 'Save card' }).click();
    await expect.poll(() => frame.getByRole('status').innerText()).toContain('Card saved');
    expect(submits).toHaveLength(1);
    await page.close();
  });

  it('shrinks after a capture: the page’s iframe takes the frame’s new, smaller height', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const session = await createSession(t, { AuthDomain: origin, Description: 'Pro plan' });
    const page = await browser.newPage();
    await page.goto(`${origin}${serve('shrink', session.Html)}`);
    const iframe = page.locator('iframe[title="Payment details"]');
    const height = () =>
      iframe.evaluate((node) => (node as unknown as { offsetHeight: number }).offsetHeight);
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/29');
    await frame.getByLabel('Security code').fill('123');
    await frame.getByLabel('Name on card').fill('Ada Lovelace');
    // The whole form shows in the frame before: nothing of it is cut off, once the frame's resize message has come
    // (under load it may come after the fields are filled).
    const formHeight = await frame
      .locator('body')
      .evaluate((node) => Math.ceil(node.getBoundingClientRect().height));
    await expect.poll(height).toBeGreaterThanOrEqual(formHeight);
    const before = await height();
    await frame.getByRole('button', { name: 'Save card' }).click();
    await expect.poll(() => frame.getByRole('status').innerText()).toContain('Card saved');
    await expect.poll(height).toBeLessThan(before);
    const after = await height();
    expect(after).toBeLessThan(150);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'shrunk.png'), fullPage: true });
    await page.close();
  });

  it('captures a bank account when the customer chooses one', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const session = await createSession(t, { AuthDomain: origin });
    const page = await browser.newPage();
    await page.goto(`${origin}${serve('bank', session.Html)}`);
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByLabel('Bank account').check();
    await frame.getByLabel('Account holder').fill('Ada Lovelace');
    await frame.getByLabel('Bank', { exact: true }).fill('Test Bank');
    await frame.getByLabel('Account number').fill('000123456789');
    await frame.getByLabel('Routing number').fill('110000000');
    await frame.getByLabel('Account type').selectOption('Checking');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'bank.png'), fullPage: true });
    await frame.getByRole('button', { name: 'Save bank account' }).click();
    await page.waitForFunction(() =>
      (globalThis as unknown as { widgetEvents: { type: string }[] }).widgetEvents.some(
        (e) => e.type === 'capture.completed',
      ),
    );
    const completed = (await events(page)).find((e) => e.type === 'capture.completed');
    expect(completed?.detail).toEqual({
      type: 'bank_account',
      bank: 'Test Bank',
      last4: '6789',
      charged: false,
    });
    await expect.poll(() => frame.getByRole('status').innerText()).toContain('Bank account saved');
    await page.close();
  });

  it('mounts one frame for each session whose Html a page holds', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const first = await createSession(t, { AuthDomain: origin });
    const second = await createSession(t, { AuthDomain: origin });
    const page = await browser.newPage();
    await page.goto(`${origin}${serve('two', `${first.Html}\n${second.Html}`)}`);
    const frames = page.locator('iframe[title="Payment details"]');
    await expect.poll(() => frames.count()).toBe(2);
    const sources = await frames.evaluateAll((nodes) =>
      nodes.map((node) => (node as unknown as { src: string }).src),
    );
    expect(sources[0]).toContain(first.HashToken);
    expect(sources[1]).toContain(second.HashToken);
    await expect.poll(() => page.frameLocator('iframe >> nth=1').getByLabel('Card number').count()).toBe(1);
    await page.close();
  });

  it('drops a forged message that is not from its own frame, even with the right widgetId', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const session = await createSession(t, { AuthDomain: origin });
    const page = await browser.newPage();
    await page.goto(`${origin}${serve('forged', session.Html)}`);
    await page.waitForFunction(() =>
      (globalThis as unknown as { widgetEvents: { type: string }[] }).widgetEvents.some(
        (e) => e.type === 'widget.ready',
      ),
    );
    // The merchant's own window posts the envelope a frame would, with the widgetId taken from the frame's URL.
    await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { src: string } } })
        .document;
      const widgetId = new URL(doc.querySelector('iframe').src).hash.slice(1);
      (globalThis as unknown as { postMessage(m: unknown, o: string): void }).postMessage(
        { ns: 'billing-widget', v: 1, widgetId, type: 'capture.completed', data: { last4: '0000' } },
        '*',
      );
    });
    // Then a real message from the frame: the forged one, posted first, was dropped and never arrives.
    const frame = page.frameLocator('iframe[title="Payment details"]');
    await frame.getByRole('button', { name: 'Save card' }).click();
    await page.waitForFunction(() =>
      (globalThis as unknown as { widgetEvents: { type: string }[] }).widgetEvents.some(
        (e) => e.type === 'capture.failed',
      ),
    );
    expect((await events(page)).map((e) => e.type)).toEqual(['widget.ready', 'capture.failed']);
    await page.close();
  });

  it('is refused when its allowed page is itself framed by another origin', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const session = await createSession(t, { AuthDomain: origin });
    const inner = serve('nested-inner', session.Html);
    const outer = serveRaw(
      'nested-outer',
      `<!doctype html><html lang="en"><title>Elsewhere</title><iframe title="Shop" src="${origin}${inner}"></iframe></html>`,
    );
    const page = await browser.newPage();
    const refusal = page.waitForEvent('console', (message) => message.text().includes('frame-ancestors'));
    await page.goto(`http://other.localhost:${merchantPortOf()}${outer}`);
    expect((await refusal).text()).toContain(`frame-ancestors ${origin}`);
    // The refusal can be logged before the frame's navigation is seen: wait for the frame itself.
    const widgetFrame = () =>
      page.frames().find((f) => f.url().startsWith(t.url) || f.url().startsWith('chrome-error:'));
    await expect.poll(() => widgetFrame() !== undefined).toBe(true);
    expect(await widgetFrame()!.locator('#card-form').count()).toBe(0);
    await page.close();
  });

  it('is refused when a page of another origin frames it: no form renders', async () => {
    const session = await createSession(t, { AuthDomain: `http://localhost:${merchantPortOf()}` });
    const page = await browser.newPage();
    const refusal = page.waitForEvent('console', (message) => message.text().includes('frame-ancestors'));
    // Another site on the same machine: Chromium resolves *.localhost to the loopback address.
    await page.goto(`http://other.localhost:${merchantPortOf()}${serve('elsewhere', session.Html)}`);
    expect((await refusal).text()).toContain(`frame-ancestors http://localhost:${merchantPortOf()}`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'refused.png'), fullPage: true });
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    expect(await frame!.locator('#card-form').count()).toBe(0);
    expect(await events(page)).toEqual([]);
    await page.close();
  });

  it('tells the page the session expired, on the service clock', async () => {
    const origin = `http://localhost:${merchantPortOf()}`;
    const session = await createSession(t, { AuthDomain: origin, ExpiresIn: '00:10:00' });
    clock.set(new Date(Date.parse(session.Expires)).toISOString());
    const page = await browser.newPage();
    await page.goto(`${origin}${serve('expired', session.Html)}`);
    await page.waitForFunction(() =>
      (globalThis as unknown as { widgetEvents: { type: string }[] }).widgetEvents.some(
        (e) => e.type === 'session.expired',
      ),
    );
    const frame = page.frameLocator('iframe[title="Payment details"]');
    expect(await frame.getByRole('status').innerText()).toContain('This form has expired');
    expect(await frame.locator('#card-form').count()).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'expired.png'), fullPage: true });
    await page.close();
  });
});
