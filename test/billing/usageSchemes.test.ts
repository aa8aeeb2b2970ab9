import fs from 'node:fs';
import { PDFParse } from 'pdf-parse';
import { describe, expect, it } from 'vitest';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import {
  createComponent,
  createCustomer,
  createPlan,
  invoicesOf,
  movableClock,
  ok,
  subscribe,
} from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// docs/pricing.md, "Usage schemes", end to end: a component of each scheme on a monthly 30.00 subscription from
// 2026-03-01, usage recorded in March, the upcoming invoice previewed, then the bill run's invoice of 2026-04-01,
// which bills April's term and March's usage (in arrears), compared line by line with the preview.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

async function billUsage(scheme: string, currency: Record<string, unknown>, units: number) {
  const shop = await t.newAccount(`Shop ${scheme}`, { isTest: true });
  const plan = await createPlan(shop, { chargePrice: 30 });
  const component = await createComponent(shop, {
    name: 'API',
    type: 'metered',
    scheme,
    unitName: 'calls',
    currency,
  });
  const customerId = await createCustomer(shop);
  const sub = await subscribe(shop, customerId, plan, {
    componentUsage: [{ componentID: component.componentID }],
  });
  await ok(
    shop,
    'PUT',
    `/v1/subscriptions/${sub.subscriptionID}/components/recordusage`,
    [{ componentID: component.componentID, NumUnits: units, isSetUnits: true }],
    204,
  );
  const upcoming = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}/upcoming-invoice`);
  expect(upcoming.InvoiceDate).toBe('2026-04-01T00:00:00.000Z');
  await ok(shop, 'POST', '/v1/test-clock/advance', { To: '2026-04-01T01:00:00Z' }, 200);
  const invoice = (await invoicesOf(shop, customerId)).at(-1);
  expect(invoice.InvoiceDate).toBe(upcoming.InvoiceDate);
  const lines = (i: any) => i.Charges.map((c: any) => [c.Descrip, c.Qty, c.AmountEx, c.AmountInc]);
  expect(lines(invoice)).toEqual(lines(upcoming));
  expect(invoice.Total).toBe(upcoming.Total);
  const pdf = await fetchInvoicePdf(t.url, shop, invoice.invoiceID);
  expect(pdf.status).toBe(200);
  if (process.env.USAGE_SCHEMES_PDF_DIR) {
    fs.writeFileSync(`${process.env.USAGE_SCHEMES_PDF_DIR}/${scheme}.pdf`, pdf.body);
  }
  const parser = new PDFParse({ data: new Uint8Array(pdf.body) });
  const pdfText = (await parser.getText()).text.replace(/\s+/g, ' ');
  await parser.destroy();
  return {
    usage: lines(invoice).filter((line: any[]) => String(line[0]).startsWith('API')),
    total: invoice.Total,
    pdfText,
  };
}

describe('usage schemes billed by the bill run, as previewed', () => {
  it('bills graduated brackets with flat fees, each bracket reached adding its fee', async () => {
    const billed = await billUsage(
      'unit',
      {
        ComponentBracketPrices: [
          { Price: 1, FlatPrice: 5, QtyFrom: 1, QtyTill: 100 },
          { Price: 0.5, FlatPrice: 10, QtyFrom: 101, QtyTill: 1000 },
          { Price: 0.25, QtyFrom: 1001 },
        ],
      },
      1500,
    );
    // 100 × 1.00 + 5.00 + 900 × 0.50 + 10.00 + 500 × 0.25 = 105 + 460 + 125 = 690.00
    expect(billed.usage).toEqual([
      [
        'API: 1500 calls (1–100 units at 1.00 + 5.00 flat; 101–1,000 units at 0.50 + 10.00 flat; 1,001+ units at 0.25)',
        1,
        690,
        690,
      ],
    ]);
    expect(billed.total).toBe(720); // 30.00 + 690.00, no tax
    expect(billed.pdfText).toContain('101–1,000 units at 0.50 + 10.00 flat');
  });

  it('says how many units were included free and how many were billed at which rate', async () => {
    const billed = await billUsage(
      'unit',
      {
        ComponentBracketPrices: [
          { Price: 0, QtyFrom: 1, QtyTill: 1000 },
          { Price: 0.05, QtyFrom: 1001 },
        ],
      },
      1101,
    );
    // 1,000 × 0.00 + 101 × 0.05 = 5.05; the line used to read "API: 1101 calls" alone, hiding both.
    expect(billed.usage).toEqual([['API: 1101 calls (1,000 included; 101 at 0.05)', 1, 5.05, 5.05]]);
    expect(billed.pdfText).toContain('1,000 included; 101 at 0.05');
  });

  it('bills volume brackets with the flat fee of the bracket holding the quantity', async () => {
    const billed = await billUsage(
      'volume',
      {
        ComponentBracketPrices: [
          { Price: 1, FlatPrice: 5, QtyFrom: 1, QtyTill: 100 },
          { Price: 0.5, FlatPrice: 10, QtyFrom: 101, QtyTill: 1000 },
          { Price: 0.25, QtyFrom: 1001 },
        ],
      },
      101,
    );
    // 101 × 0.50 + 10.00 = 60.50
    expect(billed.usage).toEqual([['API: 101 calls (101–1,000 units at 0.50 + 10.00 flat)', 1, 60.5, 60.5]]);
  });

  it('bills stairstep as the flat fee of the step holding the quantity', async () => {
    const billed = await billUsage(
      'stairstep',
      {
        ComponentBracketPrices: [
          { Price: 0, FlatPrice: 20, QtyFrom: 1, QtyTill: 10 },
          { Price: 0, FlatPrice: 50, QtyFrom: 11, QtyTill: 50 },
          { Price: 0, FlatPrice: 100, QtyFrom: 51 },
        ],
      },
      10.5,
    );
    // 10.5 is above 10, so in 11–50: 50.00
    expect(billed.usage).toEqual([['API: 10.5 calls (11–50 units: 50.00 flat)', 1, 50, 50]]);
    expect(billed.pdfText).toContain('11–50 units: 50.00 flat');
  });

  it('bills the flat fee of a first bracket from 0 for a period whose usage was recorded as 0', async () => {
    const billed = await billUsage(
      'unit',
      {
        ComponentBracketPrices: [
          { Price: 1, FlatPrice: 3, QtyFrom: 0, QtyTill: 100 },
          { Price: 0.5, QtyFrom: 101 },
        ],
      },
      0,
    );
    // 0 lies in 0–100: 0 × 1.00 + 3.00 = 3.00
    expect(billed.usage).toEqual([['API: 0 calls (0–100 units at 1.00 + 3.00 flat)', 1, 3, 3]]);
  });

  it('bills package blocks, the free units first and a partial block as one', async () => {
    const billed = await billUsage('package', { PackageSize: 100, Price: 5, FreeUnits: 50 }, 350.5);
    // ceil((350.5 − 50) / 100) = ceil(3.005) = 4 blocks × 5.00 = 20.00
    expect(billed.usage).toEqual([['API: 350.5 calls (first 50 free, 4 blocks of 100 at 5.00)', 1, 20, 20]]);
    expect(billed.pdfText).toContain('4 blocks of 100 at 5.00');
  });
});
