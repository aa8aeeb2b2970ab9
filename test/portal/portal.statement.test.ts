import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  creditNote,
  invoice,
  negativeAdjustment,
  payment,
  positiveAdjustment,
  statement,
} from '../statements/fixtures.ts';
import {
  PortalClient,
  clock,
  customerWithLogin,
  portalPath,
  signedIn,
  t,
  usePortalService,
} from './fixtures.ts';

// The portal's statement page and its PDF (docs/portal.md, "Statement and payments"), against the API's own
// GET /v1/customers/{customerID}/statement. "Today" is 15 Mar 2026 (fixtures.ts).

usePortalService();

/** An amount as the portal writes it: the currency, thousands grouped, a true minus sign. */
function usd(amount: number): string {
  const [whole, cents] = Math.abs(amount).toFixed(2).split('.');
  return `${amount < 0 ? '−' : ''}USD ${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The rows of the table captioned `caption`, each a list of its cells' text. */
function tableRows(html: string, caption: string): string[][] {
  const table = html.split('<table').find((part) => part.includes(caption));
  expect(table, `a table captioned ${caption}`).toBeDefined();
  const body = table!.slice(table!.indexOf('<tbody>'), table!.indexOf('</tbody>'));
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => text(cell[1]!)),
  );
}

/**
 * A customer's February and March: an invoice of 1,100.00 on 10 Feb (due 20 Feb), one of 50.25 on 5 Mar (due 19 Mar),
 * a payment of 30.10 on 10 Mar to the February invoice, an unallocated credit note of 10.00 on 12 Mar, interest of
 * 5.00 on 13 Mar (due 13 Mar) and an unallocated write-off of 2.00 on 14 Mar.
 */
async function history(customerId: number) {
  const february = await invoice(t, customerId, 1100, '2026-02-10', '2026-02-20');
  const march = await invoice(t, customerId, 50.25, '2026-03-05', '2026-03-19');
  const paid = await payment(t, customerId, 30.1, '2026-03-10', [
    { invoiceID: february.invoiceID, amountApplied: 30.1 },
  ]);
  const credit = await creditNote(t, customerId, 10, '2026-03-12');
  await positiveAdjustment(t, customerId, 5, '2026-03-13', '2026-03-13');
  await negativeAdjustment(t, customerId, 2, '2026-03-14');
  return { february, march, paid, credit };
}

describe('the statement page', () => {
  it("shows this month to date by default, line by line as the API's statement, and only the customer's own", async () => {
    const login = await customerWithLogin();
    const h = await history(login.customerId);
    // Someone else's records, on the same days, must not appear.
    const someoneElse = await customerWithLogin();
    const theirs = await invoice(t, someoneElse.customerId, 777, '2026-03-05', '2026-03-19');
    await payment(t, someoneElse.customerId, 7.77, '2026-03-10', 'auto');

    const client = await signedIn(login);
    const page = await client.get(`${client.base}statement`);
    expect(page.status, page.text).toBe(200);
    const api = await statement(t, login.customerId, '?startDate=2026-03-01&endDate=2026-03-15');
    // Opening: the February invoice, 1,100.00. March: +50.25 → 1,150.25; −30.10 → 1,120.15; −10.00 → 1,110.15;
    // +5.00 → 1,115.15; −2.00 → 1,113.15.
    expect([api.OpeningBalance, api.ClosingBalance]).toEqual([1100, 1113.15]);
    expect(page.text).toContain('value="2026-03-01"');
    expect(page.text).toContain('value="2026-03-15"');

    const rows = tableRows(page.text, 'Statement lines');
    expect(rows[0]).toEqual(['2026-03-01', 'Opening balance', usd(api.OpeningBalance)]);
    expect(rows.at(-1)).toEqual(['2026-03-15', 'Closing balance', usd(api.ClosingBalance)]);
    const lines = rows.slice(1, -1);
    expect(lines.map((row) => [row[0], row.at(-2), row.at(-1)])).toEqual(
      api.Lines.map((line: any) => [line.Date.slice(0, 10), usd(line.Amount), usd(line.Balance)]),
    );
    expect(lines.map((row) => row[1]!.split(' ')[0])).toEqual([
      'Invoice',
      'Payment',
      'Credit',
      'Charge',
      'Credit',
    ]);
    // A credit note's reference is its tax credit note, a link to its PDF (docs/portal.md, "Credit notes").
    expect(lines[2]![2]).toBe(`${h.credit.CreditNumber} (PDF)`);
    const [document] = await ok(t, 'GET', `/v1/tax-credit-notes?customerID=${login.customerId}`);
    expect(document.creditNoteID).toBe(h.credit.creditNoteID);
    expect(page.text).toContain(
      `<a href="${client.base}credit-notes/${document.taxCreditNoteID}/pdf" download>${h.credit.CreditNumber} (PDF)</a>`,
    );
    expect(lines[1]![2]).toBe(h.paid.Ref);
    // The invoice's reference links to its page.
    expect(page.text).toContain(
      `<a href="${client.base}invoices/${h.march.invoiceID}">Invoice ${h.march.invoiceNum}</a>`,
    );

    // Ageing on 15 Mar: the February invoice (1,069.90 open) is 23 days past due, the interest (5.00) 2 days;
    // the March invoice (50.25) is not yet due. 12.00 of credit is not applied.
    const ageing = tableRows(page.text, 'Amounts owed by days past their due date')[0];
    expect(ageing).toEqual([
      usd(api.Ageing.Current),
      usd(api.Ageing.Overdue1To30),
      usd(api.Ageing.Overdue31To60),
      usd(api.Ageing.Overdue61To90),
      usd(api.Ageing.OverdueOver90),
      usd(api.Ageing.Total),
    ]);
    expect([api.Ageing.Current, api.Ageing.Overdue1To30, api.Ageing.Total]).toEqual([50.25, 1074.9, 1125.15]);
    expect(page.text).toContain(`Credit not yet applied to an invoice: ${usd(api.Unapplied)}.`);
    expect(api.Unapplied).toBe(12);
    // The closing balance is the customer's Balance on the day.
    expect((await ok(t, 'GET', `/v1/customers/${login.customerId}`)).Balance).toBe(api.ClosingBalance);

    expect(page.text).not.toContain(`invoices/${theirs.invoiceID}"`);
    expect(page.text).not.toContain('USD 777.00');
    expect(page.text).not.toContain('USD 7.77');
  });

  it('shows the period picked, and the quick periods on the account’s calendar', async () => {
    const login = await customerWithLogin();
    const h = await history(login.customerId);
    const client = await signedIn(login);
    const page = await client.get(`${client.base}statement?startDate=2026-02-01&endDate=2026-02-28`);
    expect(page.status).toBe(200);
    const api = await statement(t, login.customerId, '?startDate=2026-02-01&endDate=2026-02-28');
    const rows = tableRows(page.text, 'Statement lines');
    expect(rows).toEqual([
      ['2026-02-01', 'Opening balance', usd(0)],
      ['2026-02-10', 'Invoice', `Invoice ${h.february.invoiceNum}`, usd(1100), usd(1100)],
      ['2026-02-28', 'Closing balance', usd(api.ClosingBalance)],
    ]);
    // The PDF link carries the period shown.
    expect(page.text).toContain(
      `href="${client.base}statement.pdf?startDate=2026-02-01&amp;endDate=2026-02-28"`,
    );

    const quick = (html: string) =>
      [
        ...html.matchAll(/<a href="[^"]*statement\?startDate=([\d-]+)&amp;endDate=([\d-]+)"[^>]*>([^<]+)</g),
      ].map((m) => [m[3], m[1], m[2]]);
    // Today, 15 Mar 2026: last month is February, whole; the last 3 months are January to today.
    expect(quick(page.text)).toEqual([
      ['This month', '2026-03-01', '2026-03-15'],
      ['Last month', '2026-02-01', '2026-02-28'],
      ['Last 3 months', '2026-01-01', '2026-03-15'],
      ['This year', '2026-01-01', '2026-03-15'],
    ]);
    expect(page.text).toMatch(/endDate=2026-02-28" aria-current="true">Last month</);
  });

  it("counts today in the account's time zone, not UTC's", async () => {
    // 31 Mar, 23:30 UTC is already 1 April in Auckland.
    clock.set('2026-03-31T23:30:00.000Z');
    try {
      const auckland = await t.newAccount('Kiwi Account', { timeZone: 'Pacific/Auckland' });
      await ok(auckland, 'PUT', '/v1/account', { PortalSlug: `kiwi-${process.pid}` });
      const login = await customerWithLogin(auckland);
      const client = new PortalClient(await portalPath(auckland), t.url);
      expect((await client.signIn(login.username, login.password)).status).toBe(303);
      const page = await client.get(`${client.base}statement`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('value="2026-04-01"');
      expect(page.text).toMatch(/startDate=2026-03-01&amp;endDate=2026-03-31"[^>]*>Last month</);
    } finally {
      clock.set('2026-03-15T10:00:00.000Z');
    }
  });

  it('answers 422 with the form and a summary naming the field, as the API refuses the same dates', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const cases: [string, string, string][] = [
      ['startDate=soon&endDate=2026-03-15', 'startDate', 'From must be a date'],
      ['startDate=2026-03-01&endDate=2026-13-45', 'endDate', 'To must be a date'],
      ['startDate=2026-03-10&endDate=2026-03-09', 'startDate', 'From must not be after the To date'],
      [
        'startDate=2025-01-01&endDate=2026-03-01',
        'endDate',
        'To must be at most 366 days from the From date',
      ],
      ['startDate=&endDate=2026-03-01', 'startDate', 'From needs a date'],
    ];
    for (const [query, field, message] of cases) {
      const page = await client.get(`${client.base}statement?${query}`);
      expect(page.status, query).toBe(422);
      expect(page.text).toContain('role="alert"');
      expect(page.text).toContain(`<a href="#${field}">${message}`);
      expect(page.text).toMatch(new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
      expect(page.text).not.toContain('Statement lines');
      // The PDF of the same period is refused the same way, with the page.
      const pdf = await client.get(`${client.base}statement.pdf?${query}`);
      expect(pdf.status, query).toBe(422);
      expect(pdf.headers.get('content-type')).toContain('text/html');
      expect(pdf.text).toContain(`<a href="#${field}">${message}`);
      if (field !== 'startDate' || !query.startsWith('startDate=&')) {
        const res = await t.request('GET', `/v1/customers/${login.customerId}/statement?${query}`);
        expect(res.status, query).toBe(422);
        expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
      }
    }
    // What the user typed stays in the form.
    expect((await client.get(`${client.base}statement?startDate=soon&endDate=2026-03-15`)).text).toContain(
      'value="soon"',
    );
    // 366 days, both ends included, is the longest period.
    expect((await client.get(`${client.base}statement?startDate=2025-03-15&endDate=2026-03-15`)).status).toBe(
      200,
    );
  });

  it('downloads the statement as a PDF with the figures of the page', async () => {
    const login = await customerWithLogin();
    await history(login.customerId);
    const client = await signedIn(login);
    const response = await fetch(
      `${t.url}${client.base}statement.pdf?startDate=2026-03-01&endDate=2026-03-15`,
      { headers: { cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="statement-${login.customerId}-2026-03-15.pdf"`,
    );
    const pdf = Buffer.from(await response.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    const dir = path.join('/tmp', 'portal-statement', process.env.TEST_DIALECT ?? 'sqlite');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'statement.pdf');
    fs.writeFileSync(file, pdf);
    execFileSync('pdftoppm', ['-png', '-r', '60', file, path.join(dir, 'statement')]);
    const printed = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    // The API's figures: opening 1,100.00, closing 1,113.15, owed 1,125.15, unapplied 12.00.
    expect(printed).toMatch(/Opening balance\s+1,100\.00/);
    expect(printed).toMatch(/Closing balance\s+1,113\.15/);
    expect(printed).toContain('1,125.15');
    expect(printed).toContain('Credit not yet applied to an invoice: USD 12.00');
  });

  it('sends a signed-out visitor to the sign-in page', async () => {
    const base = await portalPath();
    for (const address of ['statement', 'statement.pdf']) {
      const res = await fetch(`${t.url}${base}${address}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toMatch(/\/login$/);
    }
  });
});
