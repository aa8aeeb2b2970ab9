import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import { fetchStatementPdf } from '../statements/fixtures.ts';
import { clock, newCustomer, t, useInvoiceService } from './invoices.fixtures.ts';
import { renderPdf } from './pdf.fixtures.ts';

useInvoiceService();

// The documents' words (docs/spec-decisions.md, "Amounts on documents"): seller and buyer tax numbers under one
// label, and amounts with their thousands grouped, in the invoice and the statement PDF alike.

/** pdftotext spaces columns apart: runs of spaces read as one. */
const flat = (text: string) => text.replace(/[ \t]+/g, ' ');

describe('tax numbers and amounts on PDFs', () => {
  it('labels both tax numbers alike and groups thousands, in the invoice and the statement', async () => {
    clock.set('2026-12-01T09:00:00.000Z');
    const account = await t.newAccount('Big Roaster');
    await ok(
      account,
      'PUT',
      '/v1/account',
      { LegalName: 'Big Roaster (Pty) Ltd', countryID: 710, TaxNumber: '4123456789' },
      204,
    );
    const customer = await newCustomer(account, { Company: 'Coffee Club', VatNo: '4987654321' });
    const invoice = await ok(account, 'POST', '/v1/invoices', {
      customerID: customer.customerID,
      Charges: [{ Descrip: 'Green beans, a year', Qty: 1, UnitCostEx: 1234567.89 }],
    });
    // The API's decimals stay as they are.
    expect(invoice.Total).toBe(1234567.89);

    const pdf = await fetchInvoicePdf(t.url, account, invoice.invoiceID);
    expect(pdf.status).toBe(200);
    const text = flat(renderPdf(pdf.body, 'labels-invoice').text);
    expect(text).toContain('Tax number: 4123456789');
    expect(text).toContain('Tax number: 4987654321');
    expect(text).not.toContain('VAT number');
    expect(text).toContain('1,234,567.89');
    expect(text).not.toMatch(/\b1234567\.89\b/);

    const statement = await fetchStatementPdf(t.url, account, customer.customerID);
    expect(statement.status).toBe(200);
    const statementText = flat(renderPdf(statement.body, 'labels-statement').text);
    expect(statementText).toContain('1,234,567.89');
    expect(statementText).not.toMatch(/\b1234567\.89\b/);
  });
});
