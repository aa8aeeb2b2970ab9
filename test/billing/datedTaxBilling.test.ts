import { beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// Invoices taxed at the rate in force when their periods are supplied (docs/tax.md, "Rates that change on a date"):
// South Africa's VAT at 15 %, a rise to 15.5 % from 1 May 2025 scheduled in March. A vendor in Johannesburg on its
// test clock; each figure below is worked by hand (half away from zero, to the cent).
const clock = movableClock('2025-03-10T08:00:00.000Z');
const ZA = 710;

let shop: TestAccount;
const t = useTestService({ clock });
beforeAll(async () => {
  shop = await t.newAccount('Vendor in Johannesburg', {
    isTest: true,
    timeZone: 'Africa/Johannesburg',
    currencyCode: 'ZAR',
  });
});

const advance = (To: string) => ok(shop, 'POST', '/v1/test-clock/advance', { To }, 200);
// Johannesburg is UTC+2 all year: the day an instant of the wire falls on there.
const dayInJohannesburg = (instant: string) =>
  new Date(Date.parse(instant) + 2 * 3600_000).toISOString().slice(0, 10);
const figures = (invoice: any) => ({
  InvoiceDate: dayInJohannesburg(invoice.InvoiceDate),
  Taxes: invoice.Taxes.map((tax: any) => ({ Name: tax.Name, Perc: tax.Perc })),
  Total: invoice.Total,
});

describe('subscription invoices across a change of VAT rate', () => {
  it('bills April at 15 % and May at 15.5 %, and previews May at 15.5 % in April', async () => {
    const vat = await ok(shop, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15, countryID: ZA }] });
    const rise = { taxRuleID: vat.rules[0].taxRuleID, Perc: 0.155, EffectiveFrom: '2025-05-01' };
    await ok(shop, 'POST', `/v1/tax/${vat.taxSettingID}/rates`, rise);
    const plan = await createPlan(shop, { chargePrice: 100, currency: 'ZAR' });
    const monthly = await createCustomer(shop, { countryID: ZA });
    const withdrawn = await createCustomer(shop, { countryID: ZA, Name: 'Grace' });

    await advance('2025-04-01');
    const sub = await subscribe(shop, monthly, plan);
    // April, supplied before the rise: 100.00 + 15 % (15.00) = 115.00.
    expect((await invoicesOf(shop, monthly)).map(figures)).toEqual([
      { InvoiceDate: '2025-04-01', Taxes: [{ Name: 'VAT', Perc: 0.15 }], Total: 115 },
    ]);

    await advance('2025-04-20');
    // The upcoming invoice is May's, supplied from 1 May: 100.00 + 15.5 % (15.50) = 115.50.
    const upcoming = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}/upcoming-invoice`);
    expect(figures(upcoming)).toEqual({
      InvoiceDate: '2025-05-01',
      Taxes: [{ Name: 'VAT', Perc: 0.155 }],
      Total: 115.5,
    });

    await advance('2025-05-01');
    expect((await invoicesOf(shop, monthly)).map(figures)).toEqual([
      { InvoiceDate: '2025-04-01', Taxes: [{ Name: 'VAT', Perc: 0.15 }], Total: 115 },
      { InvoiceDate: '2025-05-01', Taxes: [{ Name: 'VAT', Perc: 0.155 }], Total: 115.5 },
    ]);
    expect((await invoicesOf(shop, withdrawn)).length).toBe(0);
  });

  it('taxes a month from the change at the new rate on an invoice made three days before it', async () => {
    // The account's clock is at 1 May 2025 now; a customer in the United Kingdom (826), whose rule rises on 1 June.
    const UK = 826;
    const vat = await ok(shop, 'POST', '/v1/tax', {
      Name: 'VAT ahead',
      rules: [{ Perc: 0.15, countryID: UK }],
    });
    await ok(shop, 'POST', `/v1/tax/${vat.taxSettingID}/rates`, {
      taxRuleID: vat.rules[0].taxRuleID,
      Perc: 0.155,
      EffectiveFrom: '2025-06-01',
    });
    const plan = await createPlan(shop, { chargePrice: 80, currency: 'ZAR' });
    const customer = await createCustomer(shop, { countryID: UK, Name: 'Early' });
    await subscribe(shop, customer, plan, { numDaysBeforeToInv: 3 });
    await advance('2025-05-29');
    // May, supplied before the rise: 80.00 + 15 % (12.00) = 92.00. June, invoiced on 29 May but supplied from
    // 1 June: 80.00 + 15.5 % (12.40) = 92.40.
    expect((await invoicesOf(shop, customer)).map(figures)).toEqual([
      { InvoiceDate: '2025-05-01', Taxes: [{ Name: 'VAT ahead', Perc: 0.15 }], Total: 92 },
      { InvoiceDate: '2025-05-29', Taxes: [{ Name: 'VAT ahead', Perc: 0.155 }], Total: 92.4 },
    ]);
  });

  it('bills May at 15 % when the rise scheduled in March is withdrawn in April', async () => {
    const vat = await ok(shop, 'POST', '/v1/tax', { Name: 'VAT (withdrawn)', rules: [{ Perc: 0.15 }] });
    // The account's clock is past May by now: this story starts a year on, in March 2026.
    await advance('2026-03-12');
    const rise = await ok(shop, 'POST', `/v1/tax/${vat.taxSettingID}/rates`, {
      taxRuleID: vat.rules[0].taxRuleID,
      Perc: 0.155,
      EffectiveFrom: '2026-05-01',
    });
    const plan = await createPlan(shop, { chargePrice: 200, currency: 'ZAR' });
    const customer = await createCustomer(shop, { countryID: 840, Name: 'Grace' });
    await advance('2026-04-01');
    await subscribe(shop, customer, plan);
    await advance('2026-04-24');
    await ok(shop, 'DELETE', `/v1/tax/${vat.taxSettingID}/rates/${rise.taxRateID}`);
    await advance('2026-05-01');
    // Both months 200.00 + 15 % (30.00) = 230.00: the global rule never changed.
    expect((await invoicesOf(shop, customer)).map(figures)).toEqual([
      { InvoiceDate: '2026-04-01', Taxes: [{ Name: 'VAT (withdrawn)', Perc: 0.15 }], Total: 230 },
      { InvoiceDate: '2026-05-01', Taxes: [{ Name: 'VAT (withdrawn)', Perc: 0.15 }], Total: 230 },
    ]);
  });
});
