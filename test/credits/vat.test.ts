import { describe, expect, it } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { fetchApiBytes } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';
import { clock, grant, grantOf, invoiceOf, t, useCreditsService, vatVendor } from './credits.fixtures.ts';

/**
 * Prepaid credit taxed once (docs/tax.md, "Prepaid credit"): sold with VAT (section 10(19)) the invoices it pays carry
 * no VAT again on the part it pays; taxed when used (section 10(18)) its top-up is no supply and the invoices carry
 * their VAT; free credit is a discount. A plan of 299.00 + 15 % VAT = 343.85, as a South-African vendor bills it.
 */
useCreditsService();

/** A VAT vendor (vatVendor) on 1 January 2026. */
function vendor(name: string, prepaidCreditVat?: 'when_sold' | 'when_used') {
  clock.set('2026-01-01T08:00:00.000Z');
  return vatVendor(name, prepaidCreditVat);
}

/** Buys credit with the card: the top-up's invoice charged by the collection run, its grant made. */
async function topUp(as: TestAccount, walletId: number, amount: number) {
  const made = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: amount });
  await collectDueInvoices(await accountContext(t, as.accountId, clock), { staleAfterMs: 0 });
  const grants = await ok(as, 'GET', `/v1/wallets/${walletId}/grants`);
  return {
    invoiceId: made.invoiceID as number,
    grant: grants.find((g: any) => g.TopUpInvoiceID === made.invoiceID),
  };
}

/** The plan's invoice: 299.00 + 15 % VAT = 343.85, issued (and paid from credit when there is some). */
function planInvoice(as: TestAccount, customerId: number) {
  return ok(as, 'POST', '/v1/invoices', {
    customerID: customerId,
    Charges: [{ Descrip: 'Starter', Qty: 1, UnitCostEx: 299 }],
    Taxes: [{ Name: 'VAT', Perc: 0.15 }],
  });
}

async function pdfTextOf(as: TestAccount, urlPath: string, name: string): Promise<string> {
  const res = await fetchApiBytes(t.url, as, urlPath);
  expect(res.status).toBe(200);
  return renderPdf(res.body, name).text.replace(/[ \t]+/g, ' ');
}

describe('prepaid credit sold with VAT (when_sold, the default)', () => {
  it('is a tax invoice of what it costs, and the invoices it pays as they are issued carry no VAT again', async () => {
    const { as, customerId, walletId } = await vendor('Sold with VAT');
    const bought = await topUp(as, walletId, 2000);
    // 2,000.00 of credit costs 2,000.00, its VAT inside: 2,000.00 / 1.15 = 1,739.13 ex, 260.87 VAT.
    expect(await invoiceOf(as, bought.invoiceId)).toMatchObject({
      Total: 2000,
      TotalTax: 260.87,
      Status: 'Paid',
    });
    expect(bought.grant).toMatchObject({ Amount: 2000, Remaining: 2000 });

    const invoice = await planInvoice(as, customerId);
    // Paid from the credit as it was issued: its 44.85 of VAT was paid when the credit was sold.
    expect(await invoiceOf(as, invoice.invoiceID)).toMatchObject({
      Total: 343.85,
      TotalTax: 44.85,
      Status: 'Paid',
      CreditedTotal: 343.85,
      CreditedTax: 44.85,
      BalanceTax: 0,
    });
    expect(await grantOf(as, bought.grant.creditGrantID)).toMatchObject({ Remaining: 1656.15 });
    // Shown on the invoice itself: no tax credit note for it.
    expect(await ok(as, 'GET', '/v1/tax-credit-notes')).toEqual([]);
    const text = await pdfTextOf(as, `/v1/invoices/${invoice.invoiceID}/pdf`, 'vat-when-sold-invoice');
    expect(text).toContain('TAX INVOICE');
    expect(text).toContain('Prepaid credit applied −343.85');
    const soldNum = (await invoiceOf(as, bought.invoiceId)).invoiceNum;
    expect(text).toContain(`VAT in prepaid credit sold with VAT (invoice ${soldNum}) −44.85`);
    expect(text).toContain('VAT this invoice carries 0.00');
    const sold = await pdfTextOf(as, `/v1/invoices/${bought.invoiceId}/pdf`, 'vat-when-sold-top-up');
    expect(sold).toContain('TAX INVOICE');
    expect(sold).toContain('section 10(19)');
  });

  it('takes the VAT off an invoice issued before the credit was bought with a tax credit note', async () => {
    const { as, customerId, walletId } = await vendor('Sold later');
    const invoice = await planInvoice(as, customerId);
    // No credit yet: the invoice carries its VAT. Credit is bought (paid by EFT) before the collection run
    // reaches the invoice, and the run pays the invoice from it first (credit first).
    const made = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 100 });
    await ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 100,
      CurrencyCode: 'USD',
      Date: '2026-01-01',
      Method: 'eft',
      allocations: [{ invoiceID: made.invoiceID, amountApplied: 100 }],
    });
    await collectDueInvoices(await accountContext(t, as.accountId, clock), { staleAfterMs: 0 });
    // Credit first: 100.00 of the credit pays part of the 343.85 and takes 100.00 × 44.85 / 343.85 = 13.04 of its
    // VAT; the card pays the other 243.85, whose VAT 31.81 the invoice still carries.
    expect(await invoiceOf(as, invoice.invoiceID)).toMatchObject({
      Status: 'Paid',
      CreditedTotal: 100,
      CreditedTax: 13.04,
    });
    const [document] = await ok(as, 'GET', '/v1/tax-credit-notes');
    expect(document).toMatchObject({
      Kind: 'prepaid_credit',
      Amount: 100,
      Tax: 13.04,
      AmountEx: 86.96,
      Unapplied: 0,
      Date: '2026-01-01T00:00:00.000Z',
    });
    expect(document.Lines.map((line: any) => line.invoiceID)).toEqual([invoice.invoiceID]);
    expect(document.Reason).toContain('section 10(19)');
    const text = await pdfTextOf(as, document.PdfURL, 'vat-when-sold-credit-note');
    expect(text).toContain('TAX CREDIT NOTE');
    expect(text).toContain(`Tax invoice ${invoice.invoiceNum} of 1 Jan 2026 86.96 13.04 100.00`);
  });
});

describe('prepaid credit taxed when used (when_used)', () => {
  it('is no supply when sold, and the invoices it pays carry their VAT', async () => {
    const { as, customerId, walletId } = await vendor('Taxed when used', 'when_used');
    const bought = await topUp(as, walletId, 2000);
    const sale = await invoiceOf(as, bought.invoiceId);
    expect(sale).toMatchObject({ Total: 2000, TotalTax: 0, Taxes: [] });
    const invoice = await planInvoice(as, customerId);
    // The credit pays as money does: the invoice keeps its 44.85 of VAT.
    expect(await invoiceOf(as, invoice.invoiceID)).toMatchObject({
      Status: 'Paid',
      TotalTax: 44.85,
      CreditedTotal: 0,
      CreditedTax: 0,
    });
    const text = await pdfTextOf(as, `/v1/invoices/${bought.invoiceId}/pdf`, 'vat-when-used-top-up');
    expect(text).toContain('PREPAID CREDIT');
    expect(text).not.toContain('TAX INVOICE');
    expect(text).toContain('section 10(18)');
  });

  it('applies to credit sold after the change; credit sold before keeps how it was sold', async () => {
    const { as, customerId, walletId } = await vendor('Changed treatment');
    const before = await topUp(as, walletId, 100);
    await ok(as, 'PUT', '/v1/account', { PrepaidCreditVat: 'when_used' });
    const after = await topUp(as, walletId, 1000);
    expect((await invoiceOf(as, before.invoiceId)).TotalTax).toBe(13.04);
    expect((await invoiceOf(as, after.invoiceId)).TotalTax).toBe(0);
    // Both grants have priority 1 and no expiry: the older pays first, 100.00 sold with VAT, then 243.85 of the
    // other. Only the first takes VAT off: 100.00 × 44.85 / 343.85 = 13.04.
    const invoice = await planInvoice(as, customerId);
    expect(await invoiceOf(as, invoice.invoiceID)).toMatchObject({
      Status: 'Paid',
      CreditedTotal: 100,
      CreditedTax: 13.04,
    });
  });
});

describe('free credit', () => {
  it('is a discount: the invoice it pays is taxed on what the customer pays', async () => {
    const { as, customerId, walletId } = await vendor('Free credit');
    await grant(as, walletId, { Amount: 100, Note: 'Welcome' });
    const invoice = await planInvoice(as, customerId);
    // 100.00 of 343.85 carries 100.00 × 44.85 / 343.85 = 13.04; the customer owes 243.85, whose VAT is 31.81.
    expect(await invoiceOf(as, invoice.invoiceID)).toMatchObject({
      Balance: 243.85,
      CreditedTotal: 100,
      CreditedTax: 13.04,
      BalanceTax: 31.81,
    });
    const text = await pdfTextOf(as, `/v1/invoices/${invoice.invoiceID}/pdf`, 'vat-free-credit');
    expect(text).toContain('VAT in promotional credit (a discount) −13.04');
    expect(text).toContain('VAT this invoice carries 31.81');
  });
});
