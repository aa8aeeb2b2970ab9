import { describe, expect, it } from 'vitest';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  creditNote,
  fetchStatementPdf,
  invoice,
  negativeAdjustment,
  payment,
  positiveAdjustment,
  readPdf,
  statement,
} from './fixtures.ts';

// GET /v1/customers/{customerID}/statement and statement.pdf (docs/spec-decisions.md, "Statements").

const clock = movableClock('2026-03-31T10:00:00.000Z');
const t = useTestService({ clock });

/**
 * A customer with a February invoice of 100.00 (due 20 Feb), a March invoice of 50.00 (due 19 Mar), a draft and a
 * cancelled invoice, a payment of 30.00 on the February invoice, an unallocated credit note of 10.00, interest of
 * 5.00 (due 15 Mar) and an unallocated write-off of 2.00.
 */
async function history() {
  const customerID = await createCustomer(t, { Name: 'Grace', LastName: 'Hopper', Company: 'Cobol Ltd' });
  const february = await invoice(t, customerID, 100, '2026-02-10', '2026-02-20');
  const march = await invoice(t, customerID, 50, '2026-03-05', '2026-03-19');
  await invoice(t, customerID, 70, '2026-03-06', '2026-03-20', { isDraft: true });
  const cancelled = await invoice(t, customerID, 80, '2026-03-07', '2026-03-21');
  await ok(t, 'DELETE', `/v1/invoices/${cancelled.invoiceID}`, undefined, 204);
  const paid = await payment(t, customerID, 30, '2026-03-10', [
    { invoiceID: february.invoiceID, amountApplied: 30 },
  ]);
  const credit = await creditNote(t, customerID, 10, '2026-03-12');
  const interest = await positiveAdjustment(t, customerID, 5, '2026-03-15', '2026-03-15');
  const writeOff = await negativeAdjustment(t, customerID, 2, '2026-03-20');
  return { customerID, february, march, paid, credit, interest, writeOff };
}

describe('GET /v1/customers/{customerID}/statement', () => {
  it('lists March in date order with a running balance that closes on the customer’s Balance', async () => {
    const h = await history();
    const body = await statement(t, h.customerID, '?startDate=2026-03-01&endDate=2026-03-31');
    // Opening: the February invoice, 100.00. March: +50.00 → 150.00; −30.00 → 120.00; −10.00 → 110.00;
    // +5.00 → 115.00; −2.00 → 113.00. The draft and the cancelled invoice are not on it.
    expect(body).toMatchObject({
      customerID: h.customerID,
      CurrencyCode: 'USD',
      StartDate: '2026-03-01T00:00:00.000Z',
      EndDate: '2026-03-31T00:00:00.000Z',
      OpeningBalance: 100,
      ClosingBalance: 113,
    });
    expect(body.Lines.map((l: any) => [l.Type, l.ID, l.Date.slice(0, 10), l.Amount, l.Balance])).toEqual([
      ['invoice', h.march.invoiceID, '2026-03-05', 50, 150],
      ['payment', h.paid.paymentID, '2026-03-10', -30, 120],
      ['credit_note', h.credit.creditNoteID, '2026-03-12', -10, 110],
      ['adjustment', h.interest, '2026-03-15', 5, 115],
      ['adjustment', h.writeOff, '2026-03-20', -2, 113],
    ]);
    expect(body.Lines[0]).toMatchObject({
      Reference: String(h.march.invoiceNum),
      DueDate: '2026-03-19T00:00:00.000Z',
    });
    // Balance: open on invoices 70.00 + 50.00, on the interest 5.00, less the unallocated 10.00 and 2.00 = 113.00.
    const customer = await ok(t, 'GET', `/v1/customers/${h.customerID}`);
    expect(customer.Balance).toBe(113);
    // On 31 Mar: the February invoice is 39 days past due (70.00), the March one 12 (50.00), the interest 16
    // (5.00). Owed 125.00; 12.00 of credit is not applied.
    expect(body.Ageing).toEqual({
      Current: 0,
      Overdue1To30: 55,
      Overdue31To60: 70,
      Overdue61To90: 0,
      OverdueOver90: 0,
      Total: 125,
    });
    expect(body.Unapplied).toBe(12);
  });

  it('opens a later range where an earlier one closed', async () => {
    const h = await history();
    const early = await statement(t, h.customerID, '?startDate=2026-02-01&endDate=2026-03-11');
    const late = await statement(t, h.customerID, '?startDate=2026-03-12&endDate=2026-03-31');
    // To 11 Mar: 100.00 + 50.00 − 30.00 = 120.00, which the rest opens with.
    expect([early.OpeningBalance, early.ClosingBalance]).toEqual([0, 120]);
    expect([late.OpeningBalance, late.ClosingBalance]).toEqual([120, 113]);
  });

  it('defaults to the first of the month to today, in the account’s time zone', async () => {
    const h = await history();
    const body = await statement(t, h.customerID);
    expect([body.StartDate, body.EndDate]).toEqual(['2026-03-01T00:00:00.000Z', '2026-03-31T00:00:00.000Z']);
    expect(body.ClosingBalance).toBe(113);
  });

  it('returns 422 naming startDate or endDate for an unreadable date, a reversed or too long range', async () => {
    const customerID = await createCustomer(t);
    const cases: [string, string][] = [
      ['?startDate=soon', 'startDate'],
      ['?endDate=2026-13-45', 'endDate'],
      ['?startDate=2026-03-10&endDate=2026-03-09', 'startDate'],
      ['?startDate=2025-01-01&endDate=2026-03-01', 'endDate'],
    ];
    for (const [query, field] of cases) {
      const res = await t.request('GET', `/v1/customers/${customerID}/statement${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    }
    // 366 days, both ends included, is the longest range.
    await statement(t, customerID, '?startDate=2025-03-31&endDate=2026-03-31');
  });

  it('returns 422 naming a parameter it does not take, on the statement and on PDFs, not another document', async () => {
    const customerID = await createCustomer(t);
    const invoice = await t.request('POST', '/v1/invoices', {
      body: { customerID, Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 10 }] },
    });
    for (const [path, fields] of [
      [`/v1/customers/${customerID}/statement?from=2026-01-01&to=2026-01-31`, ['from', 'to']],
      [`/v1/customers/${customerID}/statement.pdf?from=2026-01-01`, ['from']],
      [`/v1/invoices/${invoice.body.invoiceID}/pdf?version=2`, ['version']],
    ] as const) {
      const res = await t.request('GET', path);
      expect(res.status, `${path}: ${res.text}`).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual(fields);
    }
  });

  it('returns 404 for another account’s customer, and for one that does not exist', async () => {
    const other = await t.newAccount();
    const theirs = await createCustomer(other);
    for (const path of [`/v1/customers/${theirs}/statement`, `/v1/customers/${theirs}/statement.pdf`]) {
      expect((await t.request('GET', path)).status).toBe(404);
    }
    expect((await t.request('GET', '/v1/customers/999999/statement')).status).toBe(404);
  });
});

describe('GET /v1/customers/{customerID}/statement.pdf', () => {
  it('prints the seller, the customer, every line with its balance and the ageing', async () => {
    await ok(t, 'PUT', '/v1/account', {
      LegalName: 'Northwind Software Ltd',
      AddressLine1: '1 Long Lane',
      City: 'London',
      TaxNumber: 'GB987654321',
      PaymentInstructions: 'Bank: Example Bank, account 12345678',
    });
    const h = await history();
    const pdf = await fetchStatementPdf(t.url, t, h.customerID, '?startDate=2026-03-01&endDate=2026-03-31');
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(
      `inline; filename="statement-${h.customerID}-2026-03-31.pdf"`,
    );
    const text = readPdf(pdf.body, 'statement');
    for (const expected of [
      'Northwind Software Ltd',
      'STATEMENT OF ACCOUNT',
      'Cobol Ltd',
      'Attn: Grace Hopper',
      'Opening balance',
      `Invoice ${h.march.invoiceNum}`,
      'Payment · eft',
      'Closing balance',
      '1–30 days',
      'Credit not yet applied to an invoice: USD 12.00',
      'Bank: Example Bank, account 12345678',
      'Page 1 of 1',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).toMatch(/Opening balance\s+100\.00/);
    expect(text).toMatch(/Closing balance\s+113\.00/);
  });
});

describe('the lines of tax credit notes', () => {
  it('name their number and the invoice they correct, carry taxCreditNoteID, and print the number', async () => {
    const customerID = await createCustomer(t, { Name: 'Ada', LastName: 'Lovelace' });
    // 100.00 + 15 % VAT = 115.00.
    const taxed = await invoice(t, customerID, 100, '2026-03-02', '2026-03-16', {
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    const credit = await creditNote(t, customerID, 23, '2026-03-10', [
      { invoiceID: taxed.invoiceID, amountApplied: 23 },
    ]);
    const unapplied = await creditNote(t, customerID, 4, '2026-03-11');
    const adjusted = await ok(t, 'POST', '/v1/adjustment/add', {
      AdjustmentType: 'credit_note',
      customerID,
      Type: 'negative',
      Amount: 11.5,
      Date: '2026-03-12',
      Ref: 'ADJ-LATE',
      Memo: 'Late delivery',
      AutoApply: false,
      Allocations: [{ objectID: taxed.invoiceID, AmtAllocated: 11.5, isAdjustment: false }],
    });
    const writeOff = await negativeAdjustment(t, customerID, 2, '2026-03-13');
    const documents = await ok(t, 'GET', `/v1/tax-credit-notes?customerID=${customerID}`);
    const documentOf = (field: 'creditNoteID' | 'adjustmentID', id: number) =>
      documents.find((document: any) => document[field] === id);
    const ofCredit = documentOf('creditNoteID', credit.creditNoteID);
    const ofUnapplied = documentOf('creditNoteID', unapplied.creditNoteID);
    const ofAdjustment = documentOf('adjustmentID', adjusted.AdjustmentID);
    expect(ofAdjustment.CreditNumber).toMatch(/^CN-\d{4}$/);

    const body = await statement(t, customerID, '?startDate=2026-03-01&endDate=2026-03-31');
    // 115.00 − 23.00 − 4.00 − 11.50 − 2.00 = 74.50.
    expect(body.ClosingBalance).toBe(74.5);
    expect(body.Lines.map((l: any) => [l.Type, l.ID, l.Description, l.taxCreditNoteID])).toEqual([
      ['invoice', taxed.invoiceID, `Invoice ${taxed.invoiceNum}`, null],
      [
        'credit_note',
        credit.creditNoteID,
        `Credit note ${credit.CreditNumber} · invoice ${taxed.invoiceNum} · Goodwill`,
        ofCredit.taxCreditNoteID,
      ],
      [
        'credit_note',
        unapplied.creditNoteID,
        `Credit note ${unapplied.CreditNumber} · Goodwill`,
        ofUnapplied.taxCreditNoteID,
      ],
      [
        'adjustment',
        adjusted.AdjustmentID,
        `Credit note ${ofAdjustment.CreditNumber} · invoice ${taxed.invoiceNum} · Late delivery`,
        ofAdjustment.taxCreditNoteID,
      ],
      // A bad debt lowers what is owed, not the supply: no tax credit note (docs/tax.md, "Tax credit notes").
      ['adjustment', writeOff, 'Credit adjustment · bad debt · Written off', null],
    ]);
    // The existing fields keep their meaning: a credit note's Reference is its CreditNumber, an adjustment's its Ref.
    expect(body.Lines.map((l: any) => l.Reference)).toEqual([
      String(taxed.invoiceNum),
      credit.CreditNumber,
      unapplied.CreditNumber,
      'ADJ-LATE',
      expect.stringMatching(/^BD-/),
    ]);

    const pdf = await fetchStatementPdf(t.url, t, customerID, '?startDate=2026-03-01&endDate=2026-03-31');
    expect(pdf.status).toBe(200);
    const printed = readPdf(pdf.body, 'statement-tax-credit-notes').replace(/\s+/g, ' ');
    expect(printed).toContain(`Credit note ${credit.CreditNumber} · invoice ${taxed.invoiceNum}`);
    expect(printed).toContain(`Credit note ${ofAdjustment.CreditNumber} · invoice ${taxed.invoiceNum}`);
  });
});
