import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { startTestService } from '../helpers/service.ts';
import type { TestService } from '../helpers/service.ts';

// A period of service crossing a change of VAT rate, taxed in parts (docs/tax.md, "Supplies that span a change";
// the VAT Act's section 67A): South Africa's VAT at 15 %, a rise to 15.5 % from 1 May 2025 scheduled in March. Each
// story has its own vendor in Johannesburg on its own test clock, from 10 March 2025; every figure is worked by hand
// (half away from zero, to the cent; a part's share of a price by days, the last part taking the rest).
const clock = movableClock('2025-03-10T08:00:00.000Z');
const ZA = 710;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ clock });
});
afterAll(() => t.close());

/** A vendor with VAT at 15 % in South Africa rising to 15.5 % on 1 May 2025, and a customer there. */
async function vendor(name: string) {
  const shop = await t.newAccount(name, {
    isTest: true,
    timeZone: 'Africa/Johannesburg',
    currencyCode: 'ZAR',
  });
  const vat = await ok(shop, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15, countryID: ZA }] });
  const rise = await ok(shop, 'POST', `/v1/tax/${vat.taxSettingID}/rates`, {
    taxRuleID: vat.rules[0].taxRuleID,
    Perc: 0.155,
    EffectiveFrom: '2025-05-01',
  });
  const customer = await createCustomer(shop, { countryID: ZA });
  const advance = (To: string) => ok(shop, 'POST', '/v1/test-clock/advance', { To }, 200);
  return { shop, vat, rise, customer, advance };
}

// Johannesburg is UTC+2 all year: the day an instant of the wire falls on there.
const day = (instant: string) => new Date(Date.parse(instant) + 2 * 3600_000).toISOString().slice(0, 10);
const lines = (invoice: any) =>
  invoice.Charges.map((charge: any) => [charge.Descrip, charge.AmountEx, charge.AmountInc]);
const taxes = (invoice: any) => invoice.Taxes.map((tax: any) => ({ Name: tax.Name, Perc: tax.Perc }));

describe('a quarter in advance crossing the rise of 1 May 2025', () => {
  it('bills 98.90 at 15 % and 201.10 at 15.5 %: VAT 14.84 + 31.17 = 46.01', async () => {
    const { shop, customer, advance } = await vendor('Quarterly vendor');
    const plan = await createPlan(shop, { chargePrice: 300, chargeTerm: 3, currency: 'ZAR' });
    await advance('2025-04-01');
    await subscribe(shop, customer, plan);
    // 1 April to 30 June is 91 days, 30 before the rise: 300.00 × 30 / 91 = 98.901… → 98.90, VAT 15 % of it
    // 14.835 → 14.84 (98.90 + 14.84 = 113.74); the rest 201.10, VAT 15.5 % 31.1705 → 31.17 (232.27).
    // Total 300.00 + 46.01 = 346.01.
    const [invoice] = await invoicesOf(shop, customer);
    expect(day(invoice.InvoiceDate)).toBe('2025-04-01');
    expect(taxes(invoice)).toEqual([
      { Name: 'VAT', Perc: 0.15 },
      { Name: 'VAT', Perc: 0.155 },
    ]);
    expect(lines(invoice)).toEqual([
      [`${plan.name} (1 × 300.00: 30 of 91 days)`, 98.9, 113.74],
      [`${plan.name} (1 × 300.00: 61 of 91 days)`, 201.1, 232.27],
    ]);
    expect(invoice.TotalTax).toBe(46.01);
    expect(invoice.Total).toBe(346.01);
  });
});
