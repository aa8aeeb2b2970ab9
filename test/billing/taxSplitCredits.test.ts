import { describe, expect, it } from 'vitest';
import { useTestService } from '../helpers/testService.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { fetchApiBytes } from '../helpers/invoices.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';

// Credits of an invoice whose quarter crossed a change of VAT rate (docs/tax.md, "Supplies that span a change"):
// South Africa's VAT at 15 %, a rise to 15.5 % from 1 May 2025 scheduled in March; a quarter of 300.00 from 1 April
// billed 98.90 at 15 % (VAT 14.84, 113.74) and 201.10 at 15.5 % (VAT 31.17, 232.27), Total 346.01. Each story has
// its own vendor on its own test clock; every figure is worked by hand (half away from zero, to the cent).
const clock = movableClock('2025-03-10T08:00:00.000Z');
const ZA = 710;

const t = useTestService({ clock });

/** A vendor with the rise scheduled, and a customer billed the quarter from 1 April. */
async function quarterBilled(name: string) {
  const shop = await t.newAccount(name, {
    isTest: true,
    timeZone: 'Africa/Johannesburg',
    currencyCode: 'ZAR',
  });
  await ok(shop, 'PUT', '/v1/account', { countryID: ZA, TaxNumber: '4123456789' }, 204);
  const vat = await ok(shop, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15, countryID: ZA }] });
  await ok(shop, 'POST', `/v1/tax/${vat.taxSettingID}/rates`, {
    taxRuleID: vat.rules[0].taxRuleID,
    Perc: 0.155,
    EffectiveFrom: '2025-05-01',
  });
  const customer = await createCustomer(shop, { countryID: ZA });
  const advance = (To: string) => ok(shop, 'POST', '/v1/test-clock/advance', { To }, 200);
  const plan = await createPlan(shop, { chargePrice: 300, chargeTerm: 3, currency: 'ZAR' });
  await advance('2025-04-01');
  const sub = await subscribe(shop, customer, plan);
  const [invoice] = await invoicesOf(shop, customer);
  expect(invoice.Total).toBe(346.01);
  return { shop, customer, advance, sub, invoice };
}

describe('a tax credit note of the mixed invoice', () => {
  it('takes its VAT per rate, and the VAT report declares each rate apart', async () => {
    const { shop, customer, advance, invoice } = await quarterBilled('Credit note vendor');
    await advance('2025-04-10');
    await ok(shop, 'POST', '/v1/credits', {
      customerID: customer,
      Date: '2025-04-10',
      CurrencyCode: 'ZAR',
      Amount: 34.6,
      Memo: 'Outage',
      Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 34.6 }],
    });
    // 34.60 of 346.01 carries 34.60 × 46.01 / 346.01 = 4.6008… → 4.60 of VAT, shared by the rates' VAT 14.84 and
    // 31.17: 4.60 × 14.84 / 46.01 = 1.4836… and 3.1163…, the floors 1.48 and 3.11 and the cent left to the larger
    // remainder: 1.48 at 15 % and 3.12 at 15.5 %.
    const [note] = await ok(shop, 'GET', '/v1/tax-credit-notes');
    expect(note).toMatchObject({ Amount: 34.6, Tax: 4.6, AmountEx: 30 });
    expect(note.Lines[0].Taxes).toEqual([
      { Name: 'VAT', Perc: 0.15, Amount: 1.48 },
      { Name: 'VAT', Perc: 0.155, Amount: 3.12 },
    ]);

    // April's report: the invoice as one row per rate, and the credit note's 34.60 shared by the rates' AmountInc
    // 113.74 and 232.27: 11.3737… and 23.2262…, floors 11.37 and 23.22, the cent to the larger remainder: −11.37
    // and −23.23. 15 %: 113.74 − 11.37 = 102.37, VAT 14.84 − 1.48 = 13.36, ex 89.01; 15.5 %: 232.27 − 23.23 =
    // 209.04, VAT 31.17 − 3.12 = 28.05, ex 180.99. Output tax 13.36 + 28.05 = 41.41 = 46.01 − 4.60.
    const [zar] = (await ok(shop, 'GET', '/v1/reports/vat?from=2025-04-01&to=2025-04-30')).Currencies;
    expect(zar.ByRate).toEqual([
      { Rates: 'VAT 15%', AmountEx: 89.01, Tax: 13.36, AmountInc: 102.37 },
      { Rates: 'VAT 15.5%', AmountEx: 180.99, Tax: 28.05, AmountInc: 209.04 },
    ]);
    expect(zar.OutputTax).toBe(41.41);
  });
});

describe('cancelling the quarter in June', () => {
  it('credits the unused days at 15.5 % only', async () => {
    const { shop, advance, sub } = await quarterBilled('Cancel vendor');
    await advance('2025-06-16');
    await ok(shop, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/cancel/prorata`);
    // 16 June to 30 June unused: 15 days of 91, 300.00 × 15 / 91 = 49.450… → 49.45, all after the rise: VAT 15.5 %
    // 7.66475 → 7.66, credit 57.11 (at the invoice's 15 % and 15.5 % together it would have been 64.53).
    const credits = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}/credits`);
    expect(credits).toMatchObject([{ Amount: 57.11, CurrencyCode: 'ZAR' }]);
  });

  it('gives a tax credit note of 7.66 at 15.5 % and none at 15 %, and June declares it at 15.5 % only', async () => {
    const { shop, advance, sub, invoice } = await quarterBilled('Cut credit note vendor');
    await advance('2025-06-16');
    await ok(shop, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/cancel/prorata`);
    // The credit states the rates of its days (docs/tax.md, "How a crossing period is invoiced"): 49.45 + VAT
    // 15.5 % 7.66 = 57.11, all on the invoice's second tax. Taken as a share of the invoice it would have been
    // 57.11 × 46.01 / 346.01 = 7.594… → 7.59, shared 2.45 at 15 % and 5.14 at 15.5 %.
    const [note] = await ok(shop, 'GET', '/v1/tax-credit-notes');
    expect(note).toMatchObject({ Amount: 57.11, Tax: 7.66, AmountEx: 49.45 });
    expect(note.Lines).toHaveLength(1);
    expect(note.Lines[0]).toMatchObject({ invoiceID: invoice.invoiceID, AmountInc: 57.11, Tax: 7.66 });
    expect(note.Lines[0].Taxes).toEqual([
      { Name: 'VAT', Perc: 0.15, Amount: 0 },
      { Name: 'VAT', Perc: 0.155, Amount: 7.66 },
    ]);
    const pdf = await fetchApiBytes(t.url, shop, `/v1/tax-credit-notes/${note.taxCreditNoteID}/pdf`);
    expect(pdf.status).toBe(200);
    const flat = renderPdf(pdf.body, 'tax-credit-note-cut').text.replace(/[ \t]+/g, ' ');
    expect(flat).toContain('VAT 15%: 0.00');
    expect(flat).toContain('VAT 15.5%: 7.66');
    expect(flat).toContain('49.45 7.66 57.11');

    // June holds the credit note alone (the invoice is April's): one row, at 15.5 %, −57.11 with VAT −7.66, ex
    // −49.45; nothing at 15 %. Output tax −7.66.
    const [zar] = (await ok(shop, 'GET', '/v1/reports/vat?from=2025-06-01&to=2025-06-30')).Currencies;
    expect(zar.ByRate).toEqual([{ Rates: 'VAT 15.5%', AmountEx: -49.45, Tax: -7.66, AmountInc: -57.11 }]);
    expect(zar.OutputTax).toBe(-7.66);
    expect(zar.Documents).toHaveLength(1);
  });
});
