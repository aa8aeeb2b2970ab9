import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { creditNote, invoice, payment, statement } from '../statements/fixtures.ts';
import { ok } from '../helpers/billing.ts';
import {
  download,
  expectAccessible,
  newPage,
  SCREENSHOTS,
  shot,
  signIn as signInAt,
  useBrowser,
} from './browser.ts';
import { customerWithLogin, portalPath, t, usePortalService } from './fixtures.ts';

/**
 * The statement, payments and credit notes pages as a customer meets them: Debian's Chromium, headless; axe on each page in the
 * light and the dark scheme (docs/design/portal.md, "Accessibility"). Screenshots and the downloaded PDF go to
 * test-output/portal/ (test/portal/browser.ts).
 */

usePortalService();

/** What the page scripts read of the browser's globals (the DOM is not in this project's types). */
interface PageGlobals {
  document: { activeElement: { id: string } | null; documentElement: { scrollWidth: number } };
}

useBrowser();

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await signInAt(page, `${t.url}${await portalPath()}`, username, password);
  await expect.poll(() => page.locator('h1').innerText()).toContain('Ada');
}

/**
 * February: an invoice of 1,200.00 (due 20 Feb) and a payment of 200.00 on it. March: an invoice of 99.99 (due
 * 31 Mar), a credit note of 25.00 on the first invoice.
 */
async function history(customerId: number) {
  const february = await invoice(t, customerId, 1200, '2026-02-10', '2026-02-20');
  await payment(t, customerId, 200, '2026-02-15', [{ invoiceID: february.invoiceID, amountApplied: 200 }]);
  const march = await invoice(t, customerId, 99.99, '2026-03-05', '2026-03-31');
  await creditNote(t, customerId, 25, '2026-03-12', [{ invoiceID: february.invoiceID, amountApplied: 25 }]);
  return { february, march };
}

describe('the statement and payments in a browser', () => {
  // A browser walk with a PDF download: 20 to 29 s alone, past the default 30 s with the suite's other worker busy.
  it('picks a period, follows a quick choice, downloads the PDF, and lists the payments', async () => {
    const login = await customerWithLogin();
    const h = await history(login.customerId);
    const { context, page } = await newPage();
    await signIn(page, login.username, login.password);

    await page.getByRole('link', { name: 'Statement', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Statement of account');
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('2026-03-01');
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('2026-03-15');
    await expectAccessible(page, 'statement, this month');
    await shot(page, 'statement-this-month');

    // February, picked with the two dates.
    await page.getByLabel('From', { exact: true }).fill('2026-02-01');
    await page.getByLabel('To', { exact: true }).fill('2026-02-28');
    await page.getByRole('button', { name: 'Show statement' }).click();
    await expect.poll(() => page.locator('h2').first().innerText()).toBe('From 2026-02-01 to 2026-02-28');
    const february = await statement(t, login.customerId, '?startDate=2026-02-01&endDate=2026-02-28');
    // 1,200.00 invoiced, 200.00 paid: 1,000.00 at the end of February.
    expect(february.ClosingBalance).toBe(1000);
    const lines = page.getByRole('table', { name: /Statement lines/ });
    expect(await lines.locator('tbody tr').last().innerText()).toContain('USD 1,000.00');
    expect(await lines.getByRole('link', { name: `Invoice ${h.february.invoiceNum}` }).count()).toBe(1);
    await shot(page, 'statement-february');

    // "Last 3 months": January to today; its choice is marked as the one shown.
    await page.getByRole('link', { name: 'Last 3 months' }).click();
    await expect.poll(() => page.locator('h2').first().innerText()).toBe('From 2026-01-01 to 2026-03-15');
    expect(await page.getByRole('link', { name: 'Last 3 months' }).getAttribute('aria-current')).toBe('true');
    const quarter = await statement(t, login.customerId, '?startDate=2026-01-01&endDate=2026-03-15');
    expect(await page.locator('.figures').innerText()).toContain(
      `USD ${quarter.ClosingBalance.toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
    );
    expect(quarter.ClosingBalance).toBe(1074.99);
    await expectAccessible(page, 'statement, last 3 months');
    await shot(page, 'statement-quarter');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`statement-${login.customerId}-2026-03-15.pdf`);
    const saved = path.join(SCREENSHOTS, download.suggestedFilename());
    await download.saveAs(saved);
    expect(fs.readFileSync(saved).subarray(0, 5).toString()).toBe('%PDF-');
    execFileSync('pdftoppm', ['-png', '-r', '60', saved, path.join(SCREENSHOTS, 'statement-pdf')]);
    const printed = execFileSync('pdftotext', ['-layout', saved, '-'], { encoding: 'utf8' });
    expect(printed).toMatch(/Closing balance\s+1,074\.99/);

    // A period that ends before it starts: the summary is announced, takes the focus and names the field.
    await page.getByLabel('From', { exact: true }).fill('2026-03-10');
    await page.getByLabel('To', { exact: true }).fill('2026-03-09');
    await page.getByRole('button', { name: 'Show statement' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id))
      .toBe('errors');
    expect(await page.getByRole('alert').innerText()).toContain('From must not be after the To date');
    expect(await page.getByLabel('From', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'statement, refused period');
    await shot(page, 'statement-refused');

    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Payments and credits');
    const table = page.getByRole('table', { name: /Your payments and credit notes/ });
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect(await table.locator('tbody tr').first().innerText()).toContain('USD 25.00');
    await table
      .getByRole('link', { name: `Invoice ${h.february.invoiceNum}` })
      .first()
      .click();
    await expect.poll(() => page.locator('h1').innerText()).toBe(`Invoice ${h.february.invoiceNum}`);
    await page.goBack();
    await expectAccessible(page, 'payments');
    await shot(page, 'payments');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'payments-dark');
    await context.close();
  });

  it('lists the credit notes and downloads one as a PDF through the portal', async () => {
    const login = await customerWithLogin();
    // 100.00 + 15 % VAT = 115.00, credited 23.00 on 10 March: 3.00 of it is VAT (docs/tax.md, "The VAT in a
    // reduction").
    const taxed = await invoice(t, login.customerId, 100, '2026-03-02', '2026-03-16', {
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    await creditNote(t, login.customerId, 23, '2026-03-10', [
      { invoiceID: taxed.invoiceID, amountApplied: 23 },
    ]);
    const [document] = await ok(t, 'GET', `/v1/tax-credit-notes?customerID=${login.customerId}`);
    const { context, page } = await newPage();
    await signIn(page, login.username, login.password);

    await page.getByRole('link', { name: 'Credit notes', exact: true }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Credit notes');
    const table = page.getByRole('table', { name: /Your credit notes/ });
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    const row = await rows.first().innerText();
    for (const shown of [`Credit note ${document.CreditNumber}`, '2026-03-10', 'USD 23.00', 'USD 3.00'])
      expect(row).toContain(shown);
    expect(
      await table.getByRole('link', { name: `Invoice ${taxed.invoiceNum}` }).getAttribute('href'),
    ).toMatch(new RegExp(`/invoices/${taxed.invoiceID}$`));
    await expectAccessible(page, 'credit notes');
    await shot(page, 'credit-notes');

    const pdf = await download(page, () =>
      table.getByRole('link', { name: `Download ${document.CreditNumber} (PDF)` }).click(),
    );
    expect(pdf.head).toBe('%PDF-');
    expect(path.basename(pdf.file)).toBe(`credit-note-${document.CreditNumber}.pdf`);
    execFileSync('pdftoppm', ['-png', '-r', '60', pdf.file, path.join(SCREENSHOTS, 'credit-note-pdf')]);
    const printed = execFileSync('pdftotext', ['-layout', pdf.file, '-'], { encoding: 'utf8' });
    expect(printed).toContain(`Credit note ${document.CreditNumber}`);
    expect(printed).toMatch(
      new RegExp(`Tax invoice ${taxed.invoiceNum} of 2 Mar 2026\\s+20\\.00\\s+3\\.00\\s+23\\.00`),
    );
    await context.close();
  });

  it('is usable 320 pixels wide', async () => {
    const login = await customerWithLogin();
    await history(login.customerId);
    const { context, page } = await newPage({ width: 320 });
    await signIn(page, login.username, login.password);
    for (const [address, name] of [
      ['statement', 'statement-320'],
      ['payments', 'payments-320'],
    ] as const) {
      await page.goto(`${t.url}${await portalPath()}${address}`);
      // Nothing but the tables (which scroll in their own regions) is wider than the screen.
      const width = await page.evaluate(
        () => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth,
      );
      expect(width, address).toBeLessThanOrEqual(320);
      await expectAccessible(page, `${address} at 320 px`);
      await shot(page, name);
    }
    await context.close();
  });
});
