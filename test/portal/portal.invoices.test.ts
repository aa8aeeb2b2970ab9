import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { creditNote, invoice } from '../statements/fixtures.ts';
import { customerWithLogin, other, signedIn, t, usePortalService } from './fixtures.ts';
import type { PortalClient } from './fixtures.ts';

usePortalService();

describe('signed-in pages', () => {
  it("shows the customer's balance, overdue total and invoices, and only its own", async () => {
    const login = await customerWithLogin();
    const mine = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '1234.5',
      description: 'Consulting, March',
      invoiceDate: '2026-03-01',
      dueDate: '2026-03-10',
    });
    await issuedInvoice(t, { customerId: login.customerId, amount: 20, invoiceDate: '2026-03-15' });
    const someoneElse = await customerWithLogin();
    const theirs = await issuedInvoice(t, { customerId: someoneElse.customerId, amount: 99 });

    const client = await signedIn(login);
    const dashboard = await client.get(client.base);
    expect(dashboard.status).toBe(200);
    // Balance: 1 234.50 + 20.00; overdue: the first, due on 10 March, before today (15 March).
    expect(dashboard.text).toContain('USD 1,254.50');
    expect(dashboard.text).toContain('USD 1,234.50');

    const list = await client.get(`${client.base}invoices`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`Invoice ${mine.invoiceNum}`);
    expect(list.text).toContain('Past Due');
    expect(list.text).not.toContain(`Invoice ${theirs.invoiceNum}<`);
    expect(list.text).toContain('<th scope="col" class="num">Balance due (incl. tax)</th>');

    const detail = await client.get(`${client.base}invoices/${mine.invoiceID}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('Consulting, March');
    expect(detail.text).toContain('No payments or credits have been applied');

    const other = await client.get(`${client.base}invoices/${theirs.invoiceID}`);
    expect(other.status).toBe(404);
    expect((await client.get(`${client.base}invoices/${theirs.invoiceID}/pdf`)).status).toBe(404);
    expect((await client.get(`${client.base}invoices/not-a-number`)).status).toBe(404);
    expect((await client.get(`${client.base}invoices/99999999`)).status).toBe(404);
  });

  it('shows the payments applied to an invoice', async () => {
    const login = await customerWithLogin();
    const invoice = await issuedInvoice(t, { customerId: login.customerId, amount: 50 });
    await ok(t, 'POST', '/v1/payments', {
      customerID: login.customerId,
      Amount: 30,
      CurrencyCode: 'USD',
      Date: '2026-03-15',
      Method: 'eft',
      AutoApply: true,
    });
    const client = await signedIn(login);
    const detail = await client.get(`${client.base}invoices/${invoice.invoiceID}`);
    expect(detail.text).toContain('Payments and credits applied');
    expect(detail.text).toContain('USD 30.00');
    expect(detail.text).toContain('USD 20.00');
  });

  it("downloads an invoice's PDF", async () => {
    const login = await customerWithLogin();
    const invoice = await issuedInvoice(t, { customerId: login.customerId, amount: 10 });
    const client = await signedIn(login);
    const response = await fetch(`${t.url}${client.base}invoices/${invoice.invoiceID}/pdf`, {
      headers: { cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('sends a signed-out visitor to the sign-in page', async () => {
    const base = new URL((await ok(t, 'GET', '/v1/account')).PortalURL).pathname;
    for (const page of ['invoices', 'credit-notes', 'credit-notes/1/pdf']) {
      const res = await fetch(`${t.url}${base}${page}`, { redirect: 'manual' });
      expect(res.status, page).toBe(303);
      expect(res.headers.get('location'), page).toMatch(/\/login$/);
    }
  });
});

/** A taxed invoice (100.00 + 15 % VAT = 115.00) and a credit note of 23.00 on it; the register's document. */
async function creditedInvoice(as: TestAccount, customerId: number) {
  const taxed = await invoice(as, customerId, 100, '2026-03-02', '2026-03-16', {
    Taxes: [{ Name: 'VAT', Perc: 0.15 }],
  });
  const credit = await creditNote(as, customerId, 23, '2026-03-10', [
    { invoiceID: taxed.invoiceID, amountApplied: 23 },
  ]);
  const documents = await ok(as, 'GET', `/v1/tax-credit-notes?customerID=${customerId}`);
  const document = documents.find((d: any) => d.creditNoteID === credit.creditNoteID);
  return { taxed, credit, document };
}

/** GET of a portal address with the client's cookies, as bytes. */
async function fetchBytes(client: PortalClient, path: string) {
  const response = await fetch(`${t.url}${path}`, {
    headers: { cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
    redirect: 'manual',
  });
  return {
    status: response.status,
    headers: response.headers,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

describe('credit notes (docs/portal.md, "Credit notes")', () => {
  it("lists the customer's tax credit notes with the invoices they correct, and only its own", async () => {
    const login = await customerWithLogin();
    const mine = await creditedInvoice(t, login.customerId);
    // A subscription's kind of credit: a negative credit_note adjustment of 11.50, numbered in the same sequence.
    const adjusted = await ok(t, 'POST', '/v1/adjustment/add', {
      AdjustmentType: 'credit_note',
      customerID: login.customerId,
      Type: 'negative',
      Amount: 11.5,
      Date: '2026-03-12',
      Ref: 'ADJ-LATE',
      Memo: 'Late delivery',
      AutoApply: false,
      Allocations: [{ objectID: mine.taxed.invoiceID, AmtAllocated: 11.5, isAdjustment: false }],
    });
    const adjustment = (await ok(t, 'GET', `/v1/tax-credit-notes?customerID=${login.customerId}`)).find(
      (d: any) => d.adjustmentID === adjusted.AdjustmentID,
    );
    const someoneElse = await customerWithLogin();
    const theirs = await creditedInvoice(t, someoneElse.customerId);

    const client = await signedIn(login);
    const page = await client.get(`${client.base}credit-notes`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain(`<a href="${client.base}credit-notes" aria-current="page">Credit notes</a>`);
    const rows = page.text.split('<tbody>')[1]!.split('</tbody>')[0]!.split('<tr>').slice(1);
    // Newest first: the adjustment of 12 Mar, then the credit note of 10 Mar. 23.00 of 115.00 carries 3.00 of
    // VAT; 11.50 carries 1.50 (23.00 + 11.50 = 34.50 of 115.00 carries 4.50).
    expect(rows).toHaveLength(2);
    for (const [row, document, amount, tax] of [
      [rows[0]!, adjustment, 'USD 11.50', 'USD 1.50'],
      [rows[1]!, mine.document, 'USD 23.00', 'USD 3.00'],
    ] as const) {
      expect(row).toContain(`Credit note ${document.CreditNumber}`);
      expect(row).toContain(
        `<a href="${client.base}invoices/${mine.taxed.invoiceID}">Invoice ${mine.taxed.invoiceNum}</a>`,
      );
      expect(row).toContain(`<td class="num">${amount}</td>`);
      expect(row).toContain(`<td class="num">${tax}</td>`);
      expect(row).toContain(
        `<a href="${client.base}credit-notes/${document.taxCreditNoteID}/pdf" download>Download ${document.CreditNumber} (PDF)</a>`,
      );
    }
    expect(rows[0]).toContain('Late delivery');
    expect(page.text).not.toContain(`credit-notes/${theirs.document.taxCreditNoteID}/pdf`);
  });

  it("downloads its own credit note's PDF; another customer's, another account's or none is not found", async () => {
    const login = await customerWithLogin();
    const mine = await creditedInvoice(t, login.customerId);
    const someoneElse = await customerWithLogin();
    const theirs = await creditedInvoice(t, someoneElse.customerId);
    const elsewhere = await creditedInvoice(other, await createCustomer(other));
    const client = await signedIn(login);

    const pdf = await fetchBytes(client, `${client.base}credit-notes/${mine.document.taxCreditNoteID}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('cache-control')).toBe('no-store');
    expect(pdf.headers.get('content-disposition')).toBe(
      `attachment; filename="credit-note-${mine.document.CreditNumber}.pdf"`,
    );
    // The API's document (GET /v1/tax-credit-notes/{id}/pdf): its number and the invoice it corrects.
    const text = execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf.body, encoding: 'utf8' });
    expect(text).toContain(`Credit note ${mine.document.CreditNumber}`);
    expect(text).toContain(`Tax invoice ${mine.taxed.invoiceNum}`);

    for (const id of [theirs.document.taxCreditNoteID, elsewhere.document.taxCreditNoteID, 99999999, 'x1']) {
      const refused = await client.get(`${client.base}credit-notes/${id}/pdf`);
      expect(refused.status, String(id)).toBe(404);
      expect(refused.headers.get('content-type')).toContain('text/html');
    }
  });
});
