import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  createComponent,
  createCustomer,
  createPlan,
  invoicesOf,
  movableClock,
  ok,
  subscribe,
} from '../helpers/billing.ts';

// A period of service crossing a change of VAT rate, taxed in parts (docs/tax.md, "Supplies that span a change";
// the VAT Act's section 67A): South Africa's VAT at 15 %, a rise to 15.5 % from 1 May 2025 scheduled in March. Each
// story has its own vendor in Johannesburg on its own test clock, from 10 March 2025; every figure is worked by hand
// (half away from zero, to the cent; a part's share of a price by days, the last part taking the rest).
const clock = movableClock('2025-03-10T08:00:00.000Z');
const ZA = 710;

const t = useTestService({ clock });

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

  it('takes a coupon of 10 % off each part: 9.89 at 15 % and 20.11 at 15.5 %', async () => {
    const { shop, customer, advance } = await vendor('Coupon vendor');
    const plan = await createPlan(shop, { chargePrice: 300, chargeTerm: 3, currency: 'ZAR' });
    await ok(shop, 'POST', '/v1/coupons', {
      Name: 'TENOFF',
      Code: 'TENOFF',
      PercentOff: 10,
      Duration: 'forever',
    });
    await ok(shop, 'POST', `/v1/customers/${customer}/coupons`, { Code: 'TENOFF' });
    await advance('2025-04-01');
    await subscribe(shop, customer, plan);
    // The coupon takes 30.00 of the quarter, shared as the quarter is: 30.00 × 30 / 91 = 9.89 of April, 20.11 of
    // May and June. 15 %: 98.90 − 9.89 = 89.01, VAT 14.84 − 1.48 (1.4835) = 13.36; 15.5 %: 201.10 − 20.11 =
    // 180.99, VAT 31.17 − 3.12 (3.11705) = 28.05. Total 270.00 + 41.41 = 311.41.
    const [invoice] = await invoicesOf(shop, customer);
    expect(lines(invoice).map((line: unknown[]) => line.slice(1))).toEqual([
      [98.9, 113.74],
      [201.1, 232.27],
      [-9.89, -11.37],
      [-20.11, -23.23],
    ]);
    expect(invoice.Taxes.map((tax: any) => [tax.Perc])).toEqual([[0.15], [0.155]]);
    expect(invoice.TotalTax).toBe(41.41);
    expect(invoice.Total).toBe(311.41);
  });

  it('splits a price including VAT on its gross: 113.74 at 15 % and 231.26 at 15.5 %', async () => {
    const { shop, customer, advance } = await vendor('Inclusive vendor');
    await ok(shop, 'PUT', '/v1/account', { isTaxInclusive: true }, 204);
    const plan = await createPlan(shop, { chargePrice: 345, chargeTerm: 3, currency: 'ZAR' });
    await advance('2025-04-01');
    await subscribe(shop, customer, plan);
    // 345.00 × 30 / 91 = 113.736… → 113.74 including 15 %: net 113.74 / 1.15 = 98.904… → 98.90, VAT 14.84; the
    // rest 231.26 including 15.5 %: net 231.26 / 1.155 = 200.225… → 200.23, VAT 31.03. Total 345.00, VAT 45.87.
    const [invoice] = await invoicesOf(shop, customer);
    expect(lines(invoice).map((line: unknown[]) => line.slice(1))).toEqual([
      [98.9, 113.74],
      [200.23, 231.26],
    ]);
    expect(invoice.TotalTax).toBe(45.87);
    expect(invoice.Total).toBe(345);
  });

  it('leaves the quarter at 15 % when the rise is withdrawn in April before it is billed', async () => {
    const { shop, customer, advance, vat, rise } = await vendor('Withdrawn vendor');
    const plan = await createPlan(shop, { chargePrice: 300, chargeTerm: 3, currency: 'ZAR' });
    await advance('2025-04-10');
    await ok(shop, 'DELETE', `/v1/tax/${vat.taxSettingID}/rates/${rise.taxRateID}`);
    await subscribe(shop, customer, plan);
    // 10 April to 9 July at one rate: one line, 300.00 + 15 % (45.00) = 345.00.
    const [invoice] = await invoicesOf(shop, customer);
    expect(taxes(invoice)).toEqual([{ Name: 'VAT', Perc: 0.15 }]);
    expect(lines(invoice)).toEqual([[plan.name, 300, 345]]);
    expect(invoice.Total).toBe(345);
  });
});

/** A monthly usage component: SMS at 0.50 each, billed in arrears. */
const smsComponent = (shop: TestAccount) =>
  createComponent(shop, {
    currencyCode: 'ZAR',
    currency: { ComponentBracketPrices: [{ Price: 0.5, QtyFrom: 1, QtyTill: null }] },
  });

describe('a month with usage from 15 April 2025', () => {
  it('bills the fee in advance and the usage in arrears in parts, and previews both rates', async () => {
    const { shop, customer, advance } = await vendor('Usage vendor');
    const sms = await smsComponent(shop);
    const plan = await createPlan(shop, { chargePrice: 100, currency: 'ZAR' });
    await advance('2025-04-15');
    const sub = await subscribe(shop, customer, plan, { componentUsage: [{ componentID: sms.componentID }] });
    // 15 April to 14 May in advance, 30 days, 16 before the rise: 100.00 × 16 / 30 = 53.333… → 53.33, VAT 15 %
    // 7.9995 → 8.00; 46.67, VAT 15.5 % 7.23385 → 7.23. Total 115.23.
    const [first] = await invoicesOf(shop, customer);
    expect(lines(first).map((line: unknown[]) => line.slice(1))).toEqual([
      [53.33, 61.33],
      [46.67, 53.9],
    ]);
    expect(first.Total).toBe(115.23);

    await advance('2025-04-20');
    await ok(shop, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/components/recordusage`, [
      { componentID: sms.componentID, NumUnits: 100 },
    ]);
    // 15 May: the next month, 15 May to 14 June, all at 15.5 %: 100.00 + 15.50; 100 sms × 0.50 = 50.00 of 15 April
    // to 14 May in arrears, in parts as the fee was: 50.00 × 16 / 30 = 26.666… → 26.67, VAT 15 % 4.0005 → 4.00;
    // 23.33, VAT 15.5 % 3.61615 → 3.62. VAT 15 % 4.00, VAT 15.5 % 15.50 + 3.62 = 19.12; Total 150.00 + 23.12 = 173.12.
    const expected = {
      Taxes: [
        { Name: 'VAT', Perc: 0.15 },
        { Name: 'VAT', Perc: 0.155 },
      ],
      amounts: [
        [100, 115.5],
        [26.67, 30.67],
        [23.33, 26.95],
      ],
      TotalTax: 23.12,
      Total: 173.12,
    };
    const shown = (invoice: any) => ({
      Taxes: taxes(invoice),
      amounts: lines(invoice)
        .map((line: unknown[]) => line.slice(1))
        .sort((a: number[], b: number[]) => b[0]! - a[0]!),
      TotalTax: invoice.TotalTax,
      Total: invoice.Total,
    });
    const upcoming = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}/upcoming-invoice`);
    expect(day(upcoming.InvoiceDate)).toBe('2025-05-15');
    expect(shown(upcoming)).toEqual(expected);

    await advance('2025-05-15');
    const may = (await invoicesOf(shop, customer))[1];
    expect(day(may.InvoiceDate)).toBe('2025-05-15');
    expect(shown(may)).toEqual(expected);
  });

  it('taxes the usage of April at 15 % beside the fee of May at 15.5 % on the invoice of 1 May', async () => {
    const { shop, customer, advance } = await vendor('Arrears vendor');
    const sms = await smsComponent(shop);
    const plan = await createPlan(shop, { chargePrice: 100, currency: 'ZAR' });
    await advance('2025-04-01');
    const sub = await subscribe(shop, customer, plan, { componentUsage: [{ componentID: sms.componentID }] });
    await ok(shop, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/components/recordusage`, [
      { componentID: sms.componentID, NumUnits: 100 },
    ]);
    await advance('2025-05-01');
    // May's fee 100.00 at 15.5 % (15.50); April's 100 sms × 0.50 = 50.00, supplied wholly before the rise, at 15 %
    // (7.50), though invoiced after it (section 67A). Total 150.00 + 23.00 = 173.00.
    const may = (await invoicesOf(shop, customer))[1];
    expect(taxes(may)).toEqual([
      { Name: 'VAT', Perc: 0.15 },
      { Name: 'VAT', Perc: 0.155 },
    ]);
    expect(lines(may).map((line: unknown[]) => line.slice(1))).toEqual([
      [100, 115.5],
      [50, 57.5],
    ]);
    expect(may.TotalTax).toBe(23);
    expect(may.Total).toBe(173);
  });
});
