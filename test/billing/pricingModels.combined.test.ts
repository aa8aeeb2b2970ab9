import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import {
  createComponent,
  createCustomer,
  createPlan,
  invoicesOf,
  movableClock,
  ok,
  subscribe,
} from '../helpers/billing.ts';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import { useTestService } from '../helpers/testService.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';
import { billedContent, upcomingOf } from '../subscriptions/trial.helpers.ts';
import { advanceToDay } from '../helpers/clock.ts';

// The pricing models together (docs/pricing.md): tax-inclusive package and volume usage with flat fees, an
// exclusive graduated component and plan, two taxes, on a customer with a bill-cycle day. The preview before the
// bill run equals the invoice it makes, line for line.

const clock = movableClock('2026-03-10T10:00:00.000Z');
const t = useTestService({ clock });

const BRACKETS = [
  { QtyFrom: 1, QtyTill: 100, Price: 1, FlatPrice: 5 },
  { QtyFrom: 101, QtyTill: 1000, Price: 0.5, FlatPrice: 10 },
  { QtyFrom: 1001, QtyTill: null, Price: 0.25 },
];

function component(as: TestAccount, scheme: string, currency: Record<string, unknown>) {
  return createComponent(as, { name: scheme, scheme, unitName: 'calls', currency });
}

describe('the pricing models on one invoice', () => {
  it('prices tax-inclusive package and volume usage beside exclusive lines, on the bill-cycle day', async () => {
    const as = await t.newAccount('Pricing models', { isTest: true });
    await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    await ok(as, 'POST', '/v1/tax', { Name: 'Levy', rules: [{ Perc: 0.02 }] });
    const pack = await component(as, 'package', {
      PackageSize: 100,
      Price: 5,
      FreeUnits: 50,
      isTaxInclusive: true,
    });
    const volume = await component(as, 'volume', { isTaxInclusive: true, ComponentBracketPrices: BRACKETS });
    const graduated = await component(as, 'unit', { ComponentBracketPrices: BRACKETS });
    const plan = await createPlan(as, { chargePrice: 31 });
    const customerId = await createCustomer(as, { BillCycleDay: 1 });
    const sub = await subscribe(as, customerId, plan, {
      componentUsage: [pack, volume, graduated].map((c) => ({ componentID: c.componentID })),
    });
    await advanceToDay(as, '2026-03-20');
    await ok(as, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/components/recordusage`, [
      { componentID: pack.componentID, NumUnits: 350.5 },
      { componentID: volume.componentID, NumUnits: 100.5 },
      { componentID: graduated.componentID, NumUnits: 1500 },
    ]);
    const upcoming = await upcomingOf(as, sub.subscriptionID);
    await advanceToDay(as, '2026-04-01');

    const invoices = await invoicesOf(as, customerId);
    // Mar 10–Apr 1 on day 1: 31.00 × 22 / 31 = 22.00, plus 15% and 2%: 25.74.
    expect(invoices[0].Total).toBe(25.74);
    const april = invoices.at(-1);
    expect(
      april.Charges.map((c: any) => [c.Descrip, c.UnitCostInc ?? null, c.AmountEx, c.AmountInc]),
    ).toEqual([
      // 31.00 + 4.65 + 0.62
      [plan.name, null, 31, 36.27],
      // ceil(300.5 / 100) = 4 blocks × 5.00 = 20.00 with tax; 20 / 1.17 = 17.094… → 17.09 net
      ['package: 350.5 calls (first 50 free, 4 blocks of 100 at 5.00)', 20, 17.09, 20],
      // 100.5 × 0.50 + 10.00 = 60.25 with tax; 60.25 / 1.17 = 51.495… → 51.50 net
      ['volume: 100.5 calls (101–1,000 units at 0.50 + 10.00 flat)', 60.25, 51.5, 60.25],
      // 100 × 1.00 + 5.00 + 900 × 0.50 + 10.00 + 500 × 0.25 = 690.00, plus 103.50 and 13.80
      [
        'unit: 1500 calls (1–100 units at 1.00 + 5.00 flat; 101–1,000 units at 0.50 + 10.00 flat; 1,001+ units at 0.25)',
        null,
        690,
        807.3,
      ],
    ]);
    expect(april.Total).toBe(923.82);
    expect(billedContent(april)).toEqual(billedContent({ ...upcoming, Status: april.Status }));

    // The PDF as a person sees it (test-output/pdf/): the breakdowns, and the tax-inclusive prices marked.
    const pdf = await fetchInvoicePdf(t.url, as, april.invoiceID);
    const { text } = renderPdf(pdf.body, 'pricing-models');
    const words = text.replace(/\s+/g, ' ');
    // Descriptions wrap in their column, so each is checked by a part that stays on one printed line.
    expect(words).toContain('(first 50 free, 4');
    expect(words).toContain('at 0.50 + 10.00 flat)');
    expect(words).toContain('20.00 * 17.09 20.00');
    expect(words).toContain('Unit prices marked * include tax');
    expect(words).toContain('Total USD 923.82');
  });
});
