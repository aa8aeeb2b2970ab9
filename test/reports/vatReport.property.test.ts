import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * The VAT report tested over random months (docs/tax.md, "The VAT report"): random invoices over March to May 2026,
 * taxed 15 %, 0 % or not at all, to a customer at home or abroad, and random credit notes allocated to them on random
 * dates. For each month, the report's boxes are the sums of that month's documents as the API lists them elsewhere,
 * GET /v1/invoices?startDate&endDate and GET /v1/tax-credit-notes (each reduction in the month of its credit note's
 * date, or of its invoice's when that is later), each placed by the docs' table; and the documents the report lists
 * add up to its boxes.
 */
const t = useTestService();

const cents = (n: number) => Math.round(n * 100);
const MONTHS = [
  { from: '2026-03-01', to: '2026-03-31' },
  { from: '2026-04-01', to: '2026-04-30' },
  { from: '2026-05-01', to: '2026-05-31' },
];
/** The day `n` days after 1 March 2026: 0 to 91 covers March, April and May. */
const dayOf = (n: number) => new Date(Date.UTC(2026, 2, 1 + n)).toISOString().slice(0, 10);

type Tax = 'standard' | 'zero' | 'none';
interface InvoiceSpec {
  abroad: boolean;
  tax: Tax;
  lines: number[];
  day: number;
}
interface CreditSpec {
  /** The invoices it is allocated to, picked among the invoices made (the second only if the same customer's). */
  picks: number[];
  /** Each allocation's share of what the invoice still owes, in per cent. */
  percent: number;
  day: number;
}

const invoiceSpec: fc.Arbitrary<InvoiceSpec> = fc.record({
  abroad: fc.boolean(),
  tax: fc.constantFrom<Tax>('standard', 'zero', 'none'),
  lines: fc.array(fc.integer({ min: 1, max: 50_000 }), { minLength: 1, maxLength: 2 }),
  day: fc.integer({ min: 0, max: 91 }),
});
const creditSpec: fc.Arbitrary<CreditSpec> = fc.record({
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }),
  percent: fc.integer({ min: 1, max: 100 }),
  day: fc.integer({ min: 0, max: 91 }),
});

type Box = 'StandardRated' | 'ZeroRated' | 'Exported' | 'Exempt' | 'NonSupplies';
const BOXES: Box[] = ['StandardRated', 'ZeroRated', 'Exported', 'Exempt', 'NonSupplies'];
const CATEGORY: Record<Box, string> = {
  StandardRated: 'standard',
  ZeroRated: 'zero_rated',
  Exported: 'export',
  Exempt: 'exempt',
  NonSupplies: 'non_supply',
};

/**
 * Where a supply goes (docs/tax.md, "The VAT report"): taxed above 0 % is standard-rated (fields 1 and 4); no VAT to a
 * customer in another country than the seller's is an export (2A); taxes all at 0 % at home zero-rated (2); no tax at
 * home exempt (3). Read from the invoice as GET /v1/invoices gives it and where the test put its customer.
 */
function boxOf(invoice: any, abroad: boolean): Box {
  const taxes = invoice.Taxes as { Perc: number }[];
  if (taxes.some((tax) => tax.Perc > 0)) return 'StandardRated';
  if (abroad) return 'Exported';
  return taxes.length > 0 ? 'ZeroRated' : 'Exempt';
}

/** A box's figures, in cents. */
interface Figures {
  AmountEx: number;
  Tax: number;
  AmountInc: number;
}
const none = (): Figures => ({ AmountEx: 0, Tax: 0, AmountInc: 0 });
const add = (to: Figures, inc: number, tax: number) => {
  to.AmountInc += inc;
  to.Tax += tax;
  to.AmountEx += inc - tax;
};
const inCents = (f: Figures): Figures => ({
  AmountEx: cents(f.AmountEx),
  Tax: cents(f.Tax),
  AmountInc: cents(f.AmountInc),
});

/** Every page of a list. */
async function all(as: TestAccount, path: string): Promise<any[]> {
  const rows: any[] = [];
  for (let page = 1; ; page += 1) {
    const got = (await ok(as, 'GET', `${path}&page=${page}&page_size=50`)) as any[];
    rows.push(...got);
    if (got.length < 50) return rows;
  }
}

let runs = 0;

async function runMonths(invoices: InvoiceSpec[], credits: CreditSpec[]) {
  const as = await t.newAccount(`VAT months ${++runs}`);
  await ok(as, 'PUT', '/v1/account', { TimeZone: 'UTC', countryID: 710, TaxNumber: '4123456789' });
  const home = await createCustomer(as, {
    Name: 'Ada',
    Company: 'Engines CC',
    VatNo: '4987654321',
    countryID: 710,
  });
  const away = await createCustomer(as, { Name: 'Grace', countryID: 840 });
  const abroadCustomer = (customerId: number) => customerId === away;

  const made: { id: number; customerId: number }[] = [];
  for (const spec of invoices) {
    const invoice = await ok(as, 'POST', '/v1/invoices', {
      customerID: spec.abroad ? away : home,
      InvoiceDate: dayOf(spec.day),
      Charges: spec.lines.map((line, n) => ({
        Descrip: `Work ${n + 1}`,
        Qty: 1,
        UnitCostEx: (line / 100).toFixed(2),
      })),
      ...(spec.tax === 'none' ? {} : { Taxes: [{ Name: 'VAT', Perc: spec.tax === 'standard' ? 0.15 : 0 }] }),
    });
    made.push({ id: invoice.invoiceID, customerId: invoice.customerID });
  }
  // What the credit notes made allocate to each invoice, in cents.
  const allocated = new Map<number, number>();
  for (const spec of credits) {
    const first = made[spec.picks[0]! % made.length]!;
    const targets = [first];
    const second = spec.picks[1] === undefined ? undefined : made[spec.picks[1] % made.length]!;
    if (second && second.id !== first.id && second.customerId === first.customerId) targets.push(second);
    const allocations = [];
    for (const target of targets) {
      const owes = cents((await ok(as, 'GET', `/v1/invoices/${target.id}`)).Balance);
      const part = Math.max(1, Math.floor((owes * spec.percent) / 100));
      if (owes > 0)
        allocations.push({ invoiceID: target.id, amountApplied: (Math.min(part, owes) / 100).toFixed(2) });
    }
    if (allocations.length === 0) continue;
    const amount = allocations.reduce((sum, a) => sum + cents(Number(a.amountApplied)), 0);
    for (const a of allocations)
      allocated.set(a.invoiceID, (allocated.get(a.invoiceID) ?? 0) + cents(Number(a.amountApplied)));
    await ok(as, 'POST', '/v1/credits', {
      customerID: first.customerId,
      Date: dayOf(spec.day),
      CurrencyCode: 'USD',
      Amount: (amount / 100).toFixed(2),
      Memo: 'Outage',
      Allocations: allocations,
    });
  }

  // Every invoice, as the invoices' own API shows it, to place the invoices a credit note corrects.
  const everyInvoice = new Map<number, any>(
    (await all(as, '/v1/invoices?startDate=2026-03-01&endDate=2026-05-31')).map((i) => [i.invoiceID, i]),
  );
  expect(everyInvoice.size).toBe(made.length);
  const everyNote = await all(as, '/v1/tax-credit-notes?from=2026-03-01&to=2026-05-31');
  const creditedByNotes = new Map<number, { amount: number; tax: number }>();
  for (const month of MONTHS) {
    const at = `${month.from}..${month.to}`;
    const boxes = Object.fromEntries(BOXES.map((box) => [box, none()])) as Record<Box, Figures>;
    const creditNotes = none();
    const expectedDocuments: unknown[] = [];
    // The month's invoices, whole (no prepaid credit paid any): each in its box.
    for (const invoice of await all(as, `/v1/invoices?startDate=${month.from}&endDate=${month.to}`)) {
      const box = boxOf(invoice, abroadCustomer(invoice.customerID));
      add(boxes[box], cents(invoice.Total), cents(invoice.TotalTax));
      expectedDocuments.push([
        'invoice',
        invoice.invoiceID,
        null,
        CATEGORY[box],
        cents(invoice.Total),
        cents(invoice.TotalTax),
      ]);
    }
    // The month's reductions by tax credit notes, one line per invoice each corrects, netted in that invoice's box;
    // a reduction is dated by its credit note, never before the invoice it reduces (docs/tax.md).
    for (const note of everyNote) {
      for (const line of note.Lines as any[]) {
        const invoice = everyInvoice.get(line.invoiceID);
        const noteDate = note.Date.slice(0, 10);
        const invoiceDate = invoice.InvoiceDate.slice(0, 10);
        const dated = noteDate < invoiceDate ? invoiceDate : noteDate;
        if (dated < month.from || dated > month.to) continue;
        const box = boxOf(invoice, abroadCustomer(invoice.customerID));
        add(boxes[box], -cents(line.AmountInc), -cents(line.Tax));
        add(creditNotes, -cents(line.AmountInc), -cents(line.Tax));
        expectedDocuments.push([
          'credit_note',
          line.invoiceID,
          note.taxCreditNoteID,
          CATEGORY[box],
          -cents(line.AmountInc),
          -cents(line.Tax),
        ]);
        const credited = creditedByNotes.get(line.invoiceID) ?? { amount: 0, tax: 0 };
        credited.amount += cents(line.AmountInc);
        credited.tax += cents(line.Tax);
        creditedByNotes.set(line.invoiceID, credited);
      }
    }

    const reported = (await ok(as, 'GET', `/v1/reports/vat?from=${month.from}&to=${month.to}`))
      .Currencies as any[];
    if (expectedDocuments.length === 0) {
      expect(reported, at).toEqual([]);
      continue;
    }
    expect(
      reported.map((c) => c.CurrencyCode),
      at,
    ).toEqual(['USD']);
    const [usd] = reported;
    for (const box of BOXES) expect(inCents(usd[box]), `${at}: ${box}`).toEqual(boxes[box]);
    expect(inCents(usd.CreditNotes), `${at}: CreditNotes`).toEqual(creditNotes);
    // VAT201: field 1 and 4 standard-rated, 2 zero-rated, 2A exported, 3 exempt and non-supplies.
    expect(
      [usd.Vat201.Field1, usd.Vat201.Field2, usd.Vat201.Field2A, usd.Vat201.Field3, usd.Vat201.Field4].map(
        cents,
      ),
      `${at}: VAT201`,
    ).toEqual([
      boxes.StandardRated.AmountInc,
      boxes.ZeroRated.AmountInc,
      boxes.Exported.AmountInc,
      boxes.Exempt.AmountInc + boxes.NonSupplies.AmountInc,
      boxes.StandardRated.Tax,
    ]);
    expect(cents(usd.OutputTax), `${at}: OutputTax`).toBe(
      BOXES.reduce((sum, box) => sum + boxes[box].Tax, 0),
    );
    // The listed documents are these, and they add up to the boxes.
    const listed = (usd.Documents as any[]).map((d) => [
      d.Kind,
      d.invoiceID,
      d.taxCreditNoteID,
      d.Category,
      cents(d.AmountInc),
      cents(d.Tax),
    ]);
    const order = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort();
    expect(order(listed), `${at}: the documents`).toEqual(order(expectedDocuments));
    const sumOf = (documents: any[]) =>
      ['AmountEx', 'Tax', 'AmountInc'].map((field) => documents.reduce((s, d) => s + cents(d[field]), 0));
    const documents = usd.Documents as any[];
    for (const box of BOXES)
      expect(sumOf(documents.filter((d) => d.Category === CATEGORY[box])), `${at}: Σ ${box}`).toEqual(
        sumOf([usd[box]]),
      );
    expect(sumOf(documents.filter((d) => d.Kind === 'credit_note')), `${at}: Σ CreditNotes`).toEqual(
      sumOf([usd.CreditNotes]),
    );
    expect(sumOf(documents)[1], `${at}: Σ OutputTax`).toBe(cents(usd.OutputTax));
  }
  // Over the three months, every credit note made is listed (all are dated in them), and takes off each invoice what
  // it was allocated, with the VAT the invoice shows credited (docs/tax.md, "What an invoice shows").
  for (const invoice of everyInvoice.values()) {
    const credited = creditedByNotes.get(invoice.invoiceID) ?? { amount: 0, tax: 0 };
    expect([credited.amount, credited.tax], `invoice ${invoice.invoiceID}`).toEqual([
      allocated.get(invoice.invoiceID) ?? 0,
      cents(invoice.CreditedTax),
    ]);
    expect(cents(invoice.CreditedTotal), `invoice ${invoice.invoiceID}`).toBe(credited.amount);
  }
}

describe('GET /v1/reports/vat, tested over random months', () => {
  it("sums each month's invoices and tax credit notes into the boxes the docs' table puts them in", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(invoiceSpec, { minLength: 1, maxLength: 6 }),
        fc.array(creditSpec, { maxLength: 4 }),
        runMonths,
      ),
      {
        numRuns: 8,
        // Run first, whatever the seed: every box; a credit note in the invoice's month and one a month later;
        // one crediting an invoice whole; one over two invoices of different boxes.
        examples: [
          [
            [
              { abroad: false, tax: 'standard', lines: [10_000], day: 1 },
              { abroad: true, tax: 'none', lines: [20_000], day: 4 },
              { abroad: false, tax: 'zero', lines: [5_000, 2_500], day: 8 },
              { abroad: false, tax: 'none', lines: [1_234], day: 40 },
              { abroad: true, tax: 'standard', lines: [10_010, 10_010], day: 70 },
            ],
            [
              { picks: [0], percent: 20, day: 19 },
              { picks: [0], percent: 10, day: 35 },
              { picks: [1], percent: 100, day: 45 },
              { picks: [2, 3], percent: 50, day: 80 },
            ],
          ],
        ],
      },
    );
  }, 90_000);
});
