import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { fetchApiBytes } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';
import { other, t, useLedgerService } from './fixtures.ts';

/**
 * Tax credit notes (docs/tax.md, "Tax credit notes"): every credit that reduces a taxed supply is a document with
 * the invoices it corrects and the VAT it takes off them, and the invoice's VAT position follows.
 */
useLedgerService();

/** A VAT vendor's account (the seller's VAT number set) with a VAT-registered customer. */
async function vendor(name: string) {
  const as = await t.newAccount(name);
  await ok(as, 'PUT', '/v1/account', {
    TimeZone: 'UTC',
    LegalName: `${name} (Pty) Ltd`,
    AddressLine1: '1 Long Street',
    City: 'Cape Town',
    TaxNumber: '4123456789',
  });
  const customerId = await createCustomer(as, {
    Name: 'Ada',
    LastName: 'Lovelace',
    Company: 'Engines CC',
    VatNo: '4987654321',
    Address1: '2 Loop Street',
    City: 'Cape Town',
    autoSendInvoice: false,
  });
  return { as, customerId };
}

/** An issued invoice of one line with 15 % VAT: `ex` + its VAT. */
async function taxedInvoice(as: TestAccount, customerId: number, ex: number, date = '2026-03-01') {
  return ok(as, 'POST', '/v1/invoices', {
    customerID: customerId,
    InvoiceDate: date,
    Charges: [{ Descrip: 'Consulting', Qty: 1, UnitCostEx: ex }],
    Taxes: [{ Name: 'VAT', Perc: 0.15 }],
  });
}

function credit(as: TestAccount, customerId: number, body: Record<string, unknown>) {
  return ok(as, 'POST', '/v1/credits', {
    customerID: customerId,
    Date: '2026-03-10',
    CurrencyCode: 'USD',
    Memo: 'Service outage',
    ...body,
  });
}

const documentsOf = (as: TestAccount, query = '') => ok(as, 'GET', `/v1/tax-credit-notes${query}`);

describe('a credit note on a taxed invoice', () => {
  it('is a tax credit note: the invoice it corrects, the VAT it takes off, and the invoice follows', async () => {
    const { as, customerId } = await vendor('Credit shop');
    // 100.00 + 15 % = 115.00, VAT 15.00.
    const invoice = await taxedInvoice(as, customerId, 100);
    const note = await credit(as, customerId, {
      Amount: 23,
      Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 23 }],
    });
    // 23.00 of 115.00 carries 23.00 × 15.00 / 115.00 = 3.00 of VAT: 20.00 ex.
    const [document] = await documentsOf(as);
    expect(document).toMatchObject({
      Kind: 'credit_note',
      CreditNumber: note.CreditNumber,
      creditNoteID: note.creditNoteID,
      adjustmentID: null,
      customerID: customerId,
      Date: '2026-03-10T00:00:00.000Z',
      Reason: 'Service outage',
      Amount: 23,
      AmountEx: 20,
      Tax: 3,
      Unapplied: 0,
      Lines: [
        {
          invoiceID: invoice.invoiceID,
          invoiceNum: invoice.invoiceNum,
          InvoiceDate: '2026-03-01T00:00:00.000Z',
          AmountEx: 20,
          Tax: 3,
          AmountInc: 23,
          Taxes: [{ Name: 'VAT', Perc: 0.15, Amount: 3 }],
        },
      ],
      PdfURL: `/v1/tax-credit-notes/${document.taxCreditNoteID}/pdf`,
    });
    expect(await ok(as, 'GET', `/v1/tax-credit-notes/${document.taxCreditNoteID}`)).toEqual(document);
    // The invoice: 15.00 charged, 3.00 of it credited; 92.00 owed, whose VAT is 92.00 × 12.00 / 92.00 = 12.00.
    expect(await ok(as, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Total: 115,
      TotalTax: 15,
      CreditedTotal: 23,
      CreditedTax: 3,
      Balance: 92,
      BalanceTax: 12,
    });
  });

  it('takes off exactly the invoice VAT once the whole invoice is credited, in any parts', async () => {
    const { as, customerId } = await vendor('Parts shop');
    const invoice = await taxedInvoice(as, customerId, 100);
    const taxes: number[] = [];
    for (const amount of [10, 10, 10, 85]) {
      await credit(as, customerId, {
        Amount: amount,
        Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: amount }],
      });
    }
    for (const document of await documentsOf(as)) taxes.push(document.Tax);
    // Shares of 10, 20, 30 and 115 of 115.00 are 1.30, 2.61, 3.91 and 15.00: the parts carry their differences.
    expect(taxes).toEqual([1.3, 1.31, 1.3, 11.09]);
    expect(await ok(as, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      CreditedTotal: 115,
      CreditedTax: 15,
      Balance: 0,
      BalanceTax: 0,
    });
  });

  it('reduces no supply while unallocated, and the invoices it is allocated to once it is', async () => {
    const { as, customerId } = await vendor('Later shop');
    const invoice = await taxedInvoice(as, customerId, 200);
    const note = await credit(as, customerId, { Amount: 46, Allocations: [] });
    const [before] = await documentsOf(as, `?customerID=${customerId}`);
    expect(before).toMatchObject({ Amount: 46, AmountEx: 0, Tax: 0, Unapplied: 46, Lines: [] });
    const edited = await as.request('PUT', `/v1/credits/${note.creditNoteID}`, {
      body: {
        customerID: customerId,
        Date: '2026-03-12',
        CurrencyCode: 'USD',
        Amount: 46,
        CreditNumber: note.CreditNumber,
        Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 46 }],
      },
    });
    expect(edited.status, edited.text).toBe(204);
    // 46.00 of 230.00 (VAT 30.00) carries 6.00; the document takes the credit note's new date.
    const [after] = await documentsOf(as, `?customerID=${customerId}`);
    expect(after).toMatchObject({ Date: '2026-03-12T00:00:00.000Z', Tax: 6, AmountEx: 40, Unapplied: 0 });
    expect(after.Lines.map((line: any) => line.invoiceID)).toEqual([invoice.invoiceID]);
  });

  it('goes with its credit note when that is deleted, and the invoice carries its VAT again', async () => {
    const { as, customerId } = await vendor('Deleted shop');
    const invoice = await taxedInvoice(as, customerId, 100);
    const note = await credit(as, customerId, {
      Amount: 57.5,
      Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 57.5 }],
    });
    expect((await ok(as, 'GET', `/v1/invoices/${invoice.invoiceID}`)).CreditedTax).toBe(7.5);
    const deleted = await as.request('DELETE', `/v1/credits/${note.creditNoteID}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect(await documentsOf(as)).toEqual([]);
    expect(await ok(as, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      CreditedTotal: 0,
      CreditedTax: 0,
      BalanceTax: 15,
    });
  });

  it('numbers negative credit_note adjustments in the same sequence; a bad debt is no tax credit note', async () => {
    const { as, customerId } = await vendor('Adjusted shop');
    const invoice = await taxedInvoice(as, customerId, 100);
    const first = await credit(as, customerId, { Amount: 5, AutoApply: true });
    const add = (type: string, amount: number) =>
      ok(as, 'POST', '/v1/adjustment/add', {
        AdjustmentType: type,
        customerID: customerId,
        Type: 'negative',
        Amount: amount,
        Date: '2026-03-15',
        Ref: `ADJ-${type}`,
        Memo: `A ${type}`,
        AutoApply: false,
        Allocations: [{ objectID: invoice.invoiceID, AmtAllocated: amount, isAdjustment: false }],
      });
    const adjusted = await add('credit_note', 11.5);
    await add('bad_debt', 20);
    const documents = await documentsOf(as);
    expect(documents.map((d: any) => [d.Kind, d.CreditNumber, d.Amount, d.Tax])).toEqual([
      ['credit_note', first.CreditNumber, 5, 0.65],
      // 5.00 + 11.50 = 16.50 of 115.00 carries 2.15 (2.152…): 2.15 − 0.65 = 1.50.
      ['adjustment', 'CN-0002', 11.5, 1.5],
    ]);
    expect(first.CreditNumber).toBe('CN-0001');
    expect(documents[1]).toMatchObject({ adjustmentID: adjusted.AdjustmentID, Reason: 'A credit_note' });
    // The bad debt lowers what is owed, not the supply: the invoice's VAT credited is the credit notes' alone.
    expect(await ok(as, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Balance: 78.5,
      CreditedTotal: 16.5,
      CreditedTax: 2.15,
    });
  });

  it("is another account's: 404, and not listed", async () => {
    const { as, customerId } = await vendor('Private shop');
    const invoice = await taxedInvoice(as, customerId, 100);
    await credit(as, customerId, {
      Amount: 10,
      Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 10 }],
    });
    const [document] = await documentsOf(as);
    expect((await other.request('GET', `/v1/tax-credit-notes/${document.taxCreditNoteID}`)).status).toBe(404);
    expect((await other.request('GET', `/v1/tax-credit-notes/${document.taxCreditNoteID}/pdf`)).status).toBe(
      404,
    );
    expect(await documentsOf(other)).toEqual([]);
  });

  it('refuses dates it cannot read, naming them', async () => {
    const res = await t.request('GET', '/v1/tax-credit-notes?from=2026-13-01&to=yesterday');
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: any) => f.field).sort()).toEqual(['from', 'to']);
  });

  it('prints what section 21 asks: the words, number, date, both parties and the invoice corrected', async () => {
    const { as, customerId } = await vendor('Printed shop');
    const invoice = await taxedInvoice(as, customerId, 100);
    await credit(as, customerId, {
      Amount: 23,
      Memo: 'Two days of outage',
      Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 23 }],
    });
    const [document] = await documentsOf(as);
    const res = await fetchApiBytes(t.url, as, document.PdfURL);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const { text, pages } = renderPdf(res.body, 'tax-credit-note');
    const flat = text.replace(/[ \t]+/g, ' ');
    for (const expected of [
      'TAX CREDIT NOTE',
      `Credit note ${document.CreditNumber}`,
      '10 Mar 2026',
      'Printed shop (Pty) Ltd',
      'Tax number: 4123456789',
      'Engines CC',
      'Tax number: 4987654321',
      `Tax invoice ${invoice.invoiceNum} of 1 Mar 2026 20.00 3.00 23.00`,
      'VAT 15%: 3.00',
      'Total credited USD 23.00',
      'Two days of outage',
      'section 21',
    ])
      expect(flat, expected).toContain(expected);
    expect(pages).toHaveLength(1);
  });
});
