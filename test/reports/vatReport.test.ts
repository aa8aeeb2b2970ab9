import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { runCli } from '../helpers/cli.ts';
import { fetchApiBytes } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * The VAT report (docs/tax.md, "The VAT report"): what the VAT201 asks of sales for a period, from the period's
 * documents, every figure computed here by hand. A South-African vendor (countryID 710) selling to a VAT-registered
 * customer at home and to one in the United States (840).
 */
const t = useTestService();

async function vendor() {
  const as = await t.newAccount('Report shop');
  await ok(as, 'PUT', '/v1/account', { TimeZone: 'UTC', countryID: 710, TaxNumber: '4123456789' });
  const local = await createCustomer(as, {
    Name: 'Ada',
    Company: 'Engines CC',
    VatNo: '4987654321',
    countryID: 710,
  });
  const abroad = await createCustomer(as, { Name: 'Grace', countryID: 840 });
  return { as, local, abroad };
}

const invoice = (as: TestAccount, customerId: number, date: string, ex: number, perc?: number) =>
  ok(as, 'POST', '/v1/invoices', {
    customerID: customerId,
    InvoiceDate: date,
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: ex }],
    ...(perc === undefined ? {} : { Taxes: [{ Name: 'VAT', Perc: perc }] }),
  });

const credit = (as: TestAccount, customerId: number, date: string, invoiceId: number, amount: number) =>
  ok(as, 'POST', '/v1/credits', {
    customerID: customerId,
    Date: date,
    CurrencyCode: 'USD',
    Amount: amount,
    Memo: 'Outage',
    Allocations: [{ invoiceID: invoiceId, amountApplied: amount }],
  });

const report = (as: TestAccount, query: string) => ok(as, 'GET', `/v1/reports/vat?${query}`);

describe('GET /v1/reports/vat', () => {
  it('sums the supplies of a period apart per rate when the rate changes within it', async () => {
    const { as, local, abroad } = await vendor();
    // April at 15 %: 100.00 + 15.00 = 115.00. From 1 May at 15.5 %: 200.00 + 31.00 = 231.00 and 60.00 + 9.30 = 69.30.
    await invoice(as, local, '2026-04-28', 100, 0.15);
    const may = await invoice(as, local, '2026-05-05', 200, 0.155);
    await invoice(as, local, '2026-05-12', 60, 0.155);
    await invoice(as, abroad, '2026-05-13', 40);
    // A credit of 23.10 on the 231.00: VAT 23.10 × 31.00 / 231.00 = 3.10, ex 20.00.
    await credit(as, local, '2026-05-20', may.invoiceID, 23.1);

    const [usd] = (await report(as, 'from=2026-04-01&to=2026-05-31')).Currencies;
    expect(usd.ByRate).toEqual([
      { Rates: '', AmountEx: 40, Tax: 0, AmountInc: 40 },
      { Rates: 'VAT 15%', AmountEx: 100, Tax: 15, AmountInc: 115 },
      // 200.00 + 60.00 − 20.00 = 240.00; 31.00 + 9.30 − 3.10 = 37.20; 231.00 + 69.30 − 23.10 = 277.20.
      { Rates: 'VAT 15.5%', AmountEx: 240, Tax: 37.2, AmountInc: 277.2 },
    ]);
    // 15.00 + 37.20: the rates' VAT adds up to the period's.
    expect(usd.OutputTax).toBe(52.2);
  });

  it('gives two months their boxes, each the sum of its documents, credit notes netted where they are dated', async () => {
    const { as, local, abroad } = await vendor();
    // March: 100.00 + 15 % = 115.00 at home; 200.00 abroad, no tax (an export); 50.00 at home at 0 %.
    const first = await invoice(as, local, '2026-03-02', 100, 0.15);
    const exported = await invoice(as, abroad, '2026-03-05', 200);
    const zero = await invoice(as, local, '2026-03-09', 50, 0);
    // A credit of 23.00 on the first in March (VAT 23.00 × 15.00 / 115.00 = 3.00), and of 11.50 in April (1.50).
    const march = await credit(as, local, '2026-03-20', first.invoiceID, 23);
    const april = await credit(as, local, '2026-04-05', first.invoiceID, 11.5);
    // April: 300.00 + 45.00 = 345.00 at home.
    const fourth = await invoice(as, local, '2026-04-15', 300, 0.15);

    const m = await report(as, 'from=2026-03-01&to=2026-03-31');
    expect(m).toMatchObject({
      From: '2026-03-01T00:00:00.000Z',
      To: '2026-03-31T00:00:00.000Z',
      Basis: 'invoice',
    });
    expect(m.Currencies).toHaveLength(1);
    const [usd] = m.Currencies;
    expect(usd).toMatchObject({
      CurrencyCode: 'USD',
      // 115.00 − 23.00 = 92.00, of which VAT 15.00 − 3.00 = 12.00.
      StandardRated: { AmountEx: 80, Tax: 12, AmountInc: 92 },
      ZeroRated: { AmountEx: 50, Tax: 0, AmountInc: 50 },
      Exported: { AmountEx: 200, Tax: 0, AmountInc: 200 },
      Exempt: { AmountEx: 0, Tax: 0, AmountInc: 0 },
      NonSupplies: { AmountEx: 0, Tax: 0, AmountInc: 0 },
      CreditNotes: { AmountEx: -20, Tax: -3, AmountInc: -23 },
      OutputTax: 12,
      Vat201: { Field1: 92, Field2: 50, Field2A: 200, Field3: 0, Field4: 12 },
    });
    expect(
      usd.Documents.map((d: any) => [d.Kind, d.Number, d.Category, d.AmountEx, d.Tax, d.AmountInc]),
    ).toEqual([
      ['invoice', String(first.invoiceNum), 'standard', 100, 15, 115],
      ['invoice', String(exported.invoiceNum), 'export', 200, 0, 200],
      ['invoice', String(zero.invoiceNum), 'zero_rated', 50, 0, 50],
      ['credit_note', march.CreditNumber, 'standard', -20, -3, -23],
    ]);
    expect(usd.Documents[0]).toMatchObject({ Customer: 'Engines CC', VatNo: '4987654321', Rates: 'VAT 15%' });

    const a = (await report(as, 'from=2026-04-01&to=2026-04-30')).Currencies[0];
    // 345.00 − 11.50 = 333.50, VAT 45.00 − 1.50 = 43.50; the credit note corrects March's invoice.
    expect(a.Vat201).toEqual({ Field1: 333.5, Field2: 0, Field2A: 0, Field3: 0, Field4: 43.5 });
    expect(a.Documents.map((d: any) => [d.Kind, d.Number, d.invoiceID])).toEqual([
      ['invoice', String(fourth.invoiceNum), fourth.invoiceID],
      ['credit_note', april.CreditNumber, first.invoiceID],
    ]);

    // The CSV: the same documents, then each box; amounts exact with a point.
    const csv = await fetchApiBytes(t.url, as, '/v1/reports/vat.csv?from=2026-03-01&to=2026-03-31');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = csv.body.toString('utf8').trimEnd().split('\r\n');
    expect(rows[0]).toBe(
      'Currency,Kind,Number,Date,Invoice,Customer,VAT number,Category,Rates,Amount ex,VAT,Amount inc',
    );
    expect(rows[1]).toBe(
      `USD,invoice,${first.invoiceNum},2026-03-02,${first.invoiceNum},Engines CC,4987654321,standard,VAT 15%,100.00,15.00,115.00`,
    );
    expect(rows).toContain('USD,total,,2026-03-01..2026-03-31,,,,standard,,80.00,12.00,92.00');
    expect(rows).toContain('USD,total,,2026-03-01..2026-03-31,,,,VAT201 field 4,,0.00,0.00,12.00');
  });

  it('writes a customer named like a formula as text, and a negative figure as a number', async () => {
    const { as, local } = await vendor();
    const formula = "-2+3+cmd|'/C calc'!A0";
    const named = await createCustomer(as, { Name: 'Eve', Company: formula, countryID: 710 });
    const sold = await invoice(as, named, '2026-05-04', 100, 0.15);
    const first = await invoice(as, local, '2026-05-02', 20, 0.15);
    await credit(as, local, '2026-05-05', first.invoiceID, 23);
    const csv = await fetchApiBytes(t.url, as, '/v1/reports/vat.csv?from=2026-05-01&to=2026-05-31');
    const rows = csv.body.toString('utf8').trimEnd().split('\r\n');
    expect(rows).toContain(
      `USD,invoice,${sold.invoiceNum},2026-05-04,${sold.invoiceNum},'${formula},,standard,VAT 15%,100.00,15.00,115.00`,
    );
    expect(rows.find((row) => row.startsWith('USD,credit_note,'))).toMatch(/,-20\.00,-3\.00,-23\.00$/);
  });

  it('keeps a filed period as it was: credit given back and late allocations count in their own period', async () => {
    const { as, local } = await vendor();
    const wallet = await ok(as, 'POST', `/v1/customers/${local}/wallets`, { CurrencyCode: 'USD' });
    await ok(as, 'POST', `/v1/wallets/${wallet.walletID}/grants`, { Amount: 115 });
    // January: 100.00 + 15.00 = 115.00, paid whole by the promotional credit (a discount) as it was issued.
    const january = await invoice(as, local, '2026-01-05', 100, 0.15);
    const month = async (m: string, last: number) =>
      (await report(as, `from=2026-${m}-01&to=2026-${m}-${last}`)).Currencies[0]?.Vat201 ?? null;
    const filed = await month('01', 31);
    expect(filed).toMatchObject({ Field1: 0, Field4: 0 });
    // 10 February: a credit note of 23.00 on it takes its place, and 23.00 of the credit goes back to the wallet.
    await credit(as, local, '2026-02-10', january.invoiceID, 23);
    expect(await month('01', 31)).toEqual(filed);
    // February: the credit note takes 20.00 + 3.00 off. The credit given back for it puts 23.00 (3.00 VAT) on the
    // invoice again on the day it went back, today (this file's accounts run on the real clock).
    const february = (await report(as, 'from=2026-02-01&to=2026-02-28')).Currencies[0];
    expect(february.Documents.map((d: any) => [d.Kind, d.AmountInc, d.Tax])).toEqual([
      ['credit_note', -23, -3],
    ]);
    const today = new Date().toISOString().slice(0, 10);
    const back = (await report(as, `from=${today}&to=${today}`)).Currencies[0];
    expect(back.Documents.map((d: any) => [d.Kind, d.invoiceID, d.AmountInc, d.Tax])).toEqual([
      ['credit_returned', january.invoiceID, 23, 3],
    ]);

    // A credit note of 10 January left unallocated, allocated to an invoice of 5 March: it reduces March's supply.
    const early = await ok(as, 'POST', '/v1/credits', {
      customerID: local,
      Date: '2026-01-10',
      CurrencyCode: 'USD',
      Amount: 11.5,
      Memo: 'Goodwill',
      Allocations: [],
    });
    const march = await invoice(as, local, '2026-03-05', 100, 0.15);
    await ok(as, 'PUT', `/v1/credits/${early.creditNoteID}`, {
      customerID: local,
      Date: '2026-01-10',
      CurrencyCode: 'USD',
      Amount: 11.5,
      Memo: 'Goodwill',
      Allocations: [{ invoiceID: march.invoiceID, amountApplied: 11.5 }],
    });
    expect(await month('01', 31)).toEqual(filed);
    // March: 115.00 less 11.50 is 103.50 (the credit left after January's gave 92.00 more back): VAT 15.00 − 1.50.
    const inMarch = (await report(as, 'from=2026-03-01&to=2026-03-31')).Currencies[0];
    expect(
      inMarch.Documents.filter((d: any) => d.Kind === 'credit_note').map((d: any) => [d.Date, d.Tax]),
    ).toEqual([['2026-03-05T00:00:00.000Z', -1.5]]);
  });

  it('reads money by the day it came on the payments basis', async () => {
    const { as, local } = await vendor();
    const first = await invoice(as, local, '2026-03-02', 100, 0.15);
    await credit(as, local, '2026-03-20', first.invoiceID, 23);
    await ok(as, 'POST', '/v1/payments', {
      customerID: local,
      Amount: 46,
      CurrencyCode: 'USD',
      Date: '2026-04-03',
      Method: 'eft',
      allocations: [{ invoiceID: first.invoiceID, amountApplied: 46 }],
    });
    // Nothing came in March; in April 46.00 of the 92.00 left after the credit, whose VAT is 12.00: 6.00.
    expect((await report(as, 'from=2026-03-01&to=2026-03-31&basis=payments')).Currencies).toEqual([]);
    const [april] = (await report(as, 'from=2026-04-01&to=2026-04-30&basis=payments')).Currencies;
    expect(april).toMatchObject({ StandardRated: { AmountEx: 40, Tax: 6, AmountInc: 46 }, OutputTax: 6 });
    expect(april.Documents).toEqual([
      expect.objectContaining({ Kind: 'payment', paymentID: expect.any(Number) }),
    ]);
    // The account's basis is the default.
    await ok(as, 'PUT', '/v1/account', { VatBasis: 'payments' });
    expect((await report(as, 'from=2026-04-01&to=2026-04-30')).Basis).toBe('payments');
  });

  it("refuses a period it cannot read, naming the field, and shows no other account's documents", async () => {
    const { as, local } = await vendor();
    await invoice(as, local, '2026-03-02', 100, 0.15);
    const backwards = await as.request('GET', '/v1/reports/vat?from=2026-03-31&to=2026-03-01');
    expect(backwards.status).toBe(422);
    expect(backwards.body.fields).toEqual([{ field: 'from', message: expect.stringContaining('after to') }]);
    const unread = await as.request('GET', '/v1/reports/vat?from=soon&to=2026-03-01');
    expect(unread.status).toBe(422);
    expect(unread.body.fields.map((f: any) => f.field)).toContain('from');
    expect((await as.request('GET', '/v1/reports/vat?from=2026-03-01&to=2026-03-31&basis=cash')).status).toBe(
      422,
    );
    const other = await t.newAccount('Other report shop');
    expect((await report(other, 'from=2026-03-01&to=2026-03-31')).Currencies).toEqual([]);
  });
});

describe('billing report vat', () => {
  it('prints the boxes, or the listing as CSV', async () => {
    const { as, local } = await vendor();
    await invoice(as, local, '2026-03-02', 100, 0.15);
    const args = [
      'report',
      'vat',
      '--account',
      String(as.accountId),
      '--from',
      '2026-03-01',
      '--to',
      '2026-03-31',
    ];
    const printed = await runCli(args, t.env);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('VAT report, 2026-03-01 to 2026-03-31, invoice basis');
    expect(printed.stdout).toMatch(/Standard-rated supplies \(fields 1 and 4\) +100\.00 +15\.00 +115\.00/);
    expect(printed.stdout).toContain('1 document(s)');
    const csv = await runCli([...args, '--csv'], t.env);
    expect(csv.stdout.split('\r\n')[1]).toMatch(/^USD,invoice,/);
    const bad = await runCli([...args, '--basis', 'cash'], t.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be invoice or payments');
  });
});
