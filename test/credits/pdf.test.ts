import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';
import { clock, grant, invoice, t, useCreditsService, walletOf } from './credits.fixtures.ts';

// docs/credits.md, "Tax": credit is applied after tax, as a payment: the invoice PDF shows it on its own line under
// the total, "Prepaid credit applied −25.00", and the balance due after it.
useCreditsService();

describe('the invoice PDF', () => {
  it('shows the prepaid credit applied under the total', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('PDF shop');
    await grant(as, walletId, { Amount: 25 });
    const issued = await invoice(as, customerId, 100);
    const pdf = await fetchInvoicePdf(t.url, as, issued.invoiceID);
    expect(pdf.status).toBe(200);
    const rendered = renderPdf(pdf.body, 'credits-prepaid-applied');
    // 100.00 less 25.00 of credit: 75.00 due.
    expect(rendered.text).toMatch(/Prepaid credit applied\s+\u221225\.00/);
    expect(rendered.text).toMatch(/Balance due USD\s+75\.00/);
    expect(rendered.text).not.toMatch(/^\s*Credits\s/m);

    // A credit note of 10.00 on it is among the other credits, taken off as the credit is: 65.00 due.
    await ok(as, 'POST', '/v1/credits', {
      customerID: customerId,
      Amount: 10,
      CurrencyCode: 'USD',
      Date: '2026-03-01',
      allocations: [{ invoiceID: issued.invoiceID, amountApplied: 10 }],
    });
    const again = renderPdf(
      (await fetchInvoicePdf(t.url, as, issued.invoiceID)).body,
      'credits-and-credit-note',
    );
    expect(again.text).toMatch(/Prepaid credit applied\s+\u221225\.00/);
    expect(again.text).toMatch(/Credits\s+\u221210\.00/);
    expect(again.text).toMatch(/Balance due USD\s+65\.00/);
  });
});
