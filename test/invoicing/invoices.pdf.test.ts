import { describe, expect, it } from 'vitest';
import { createInvoice, db, fetchPdf, newCustomer, t, useInvoiceService } from './invoices.fixtures.ts';

useInvoiceService();

describe('GET /v1/invoices/{invoiceID}/pdf', () => {
  it('renders the account, the customer, the number, dates, lines, taxes, totals and balance exactly', async () => {
    const account = await t.newAccount('Acme Billing Ltd');
    const customer = await newCustomer(account, {
      Name: 'Grace',
      LastName: 'Hopper',
      Company: 'Navy Labs',
      Address1: '1 Harbour Road',
      City: 'Arlington',
      ZipCode: '22201',
      Country: 'United States',
      Email: 'grace@navy.example',
    });
    const invoice = await createInvoice(
      {
        customerID: customer.customerID,
        InvoiceDate: '2026-03-05',
        DueDate: '2026-04-04',
        Reference: 'REF-PDF',
        poNumber: 'PO-9',
        Notes: 'Thank you for your business',
        // 3 × 3.333 → 10.00 (VAT 1.50, Levy 0.10); 1 × 0.05 → 0.05 (VAT 0.01, Levy 0.00).
        // VAT total 1.51, Levy total 0.10; Total 10.05 + 1.61 = 11.66.
        Charges: [
          { Descrip: 'Widgets', Qty: 3, UnitCostEx: 3.333 },
          { Descrip: 'Postage', Qty: 1, UnitCostEx: 0.05 },
        ],
        Taxes: [
          { Name: 'VAT', Perc: 0.15 },
          { Name: 'Levy', Perc: 0.01 },
        ],
      },
      account,
    );
    expect(invoice.Total).toBe(11.66);
    await db()
      .updateTable('invoices')
      .set({ paid_actual_minor: 500 })
      .where('id', '=', invoice.invoiceID)
      .execute();

    const { res, text } = await fetchPdf(invoice.invoiceID, account);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `inline; filename="invoice-${invoice.invoiceNum}.pdf"`,
    );
    for (const expected of [
      'Acme Billing Ltd',
      `Invoice ${invoice.invoiceNum}`,
      'Grace Hopper',
      'Navy Labs',
      '1 Harbour Road',
      'Arlington, 22201',
      'United States',
      'grace@navy.example',
      '5 Mar 2026',
      '4 Apr 2026',
      'REF-PDF',
      'PO-9',
      'Widgets 3 3.333 10.00 11.60',
      'Postage 1 0.05 0.05 0.06',
      'Subtotal (excl. tax) 10.05',
      'VAT (15%) 1.51',
      'Levy (1%) 0.10',
      'Total USD 11.66',
      'Paid \u22125.00',
      'Balance due USD 6.66',
      'Thank you for your business',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('marks a draft as DRAFT and a cancelled invoice as CANCELLED', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({ customerID, isDraft: true });
    const drafted = await fetchPdf(draft.invoiceID);
    expect(drafted.res.headers.get('content-disposition')).toContain(`invoice-draft-${draft.invoiceID}.pdf`);
    expect(drafted.text).toContain('DRAFT');
    const issued = await createInvoice({ customerID });
    await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`);
    expect((await fetchPdf(issued.invoiceID)).text).toContain('CANCELLED');
  });
});
