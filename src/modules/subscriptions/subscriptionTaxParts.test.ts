import { describe, expect, it } from 'vitest';
import { percOn, rateChangesWithin } from '../../core/taxRates.ts';
import type { TaxRateTimeline } from '../../core/taxRates.ts';
import { priceInvoice } from '../invoicing/index.ts';
import { creditsForCut } from './subscriptionChanges.ts';
import type { PlannedInvoice, PlannedLine } from './subscriptionBilling.ts';
import { taxByRates } from './subscriptionTaxParts.ts';
import type { SupplyRates } from './subscriptionTaxParts.ts';

// South Africa's VAT, 15 % rising to 15.5 % on 1 May 2025 (docs/tax.md, "Supplies that span a change").
const vat: TaxRateTimeline = { openingPerc: '0.15', rates: [{ perc: '0.155', effectiveFrom: '2025-05-01' }] };
const rates: SupplyRates = {
  taxesOn: (date) => [{ name: 'VAT', perc: percOn(vat, date) }],
  changesWithin: (period) => rateChangesWithin(period, [vat]),
};
const quarter: PlannedLine = {
  descrip: 'Plan',
  qty: '1',
  unitCostEx: '300.00',
  periodStart: '2025-04-01',
  periodEnd: '2025-07-01',
};
const plannedOf = (lines: PlannedLine[], lineDiscountsMinor?: number[]): PlannedInvoice => ({
  invoiceDate: '2025-04-01',
  lines,
  usageIds: [],
  period: null,
  ...(lineDiscountsMinor ? { lineDiscountsMinor } : {}),
});
const priced = (planned: PlannedInvoice) => {
  const { charges, taxes } = taxByRates(planned, rates, 'ZAR');
  const figures = priceInvoice(
    charges,
    taxes.map((tax) => tax.perc),
    'ZAR',
  );
  return { charges, taxes, figures };
};

describe('taxByRates', () => {
  it('cuts a quarter crossing 1 May into 98.90 at 15 % and 201.10 at 15.5 %', () => {
    const { charges, taxes, figures } = priced(plannedOf([quarter]));
    expect(taxes).toEqual([
      { name: 'VAT', perc: '0.15' },
      { name: 'VAT', perc: '0.155' },
    ]);
    expect(charges.map((c) => [c.unitCostEx, c.periodStart, c.periodEnd, c.taxPositions])).toEqual([
      ['98.90', '2025-04-01', '2025-05-01', [0]],
      ['201.10', '2025-05-01', '2025-07-01', [1]],
    ]);
    // 98.90 × 15 % = 14.835 → 14.84; 201.10 × 15.5 % = 31.1705 → 31.17.
    expect(figures.taxTotalsMinor).toEqual([1484, 3117]);
    expect(figures.totalMinor).toBe(34601);
  });

  it('shares a coupon of 10 % over the parts by what it took of each', () => {
    // The coupon took 30.00 of the quarter: 30.00 × 30 / 91 = 9.89 of April, 20.11 of May and June.
    const discount: PlannedLine = { ...quarter, descrip: '10% off', unitCostEx: '-30.00' };
    const { charges, figures } = priced(plannedOf([quarter, discount], [3000]));
    expect(charges.map((c) => [c.descrip, c.unitCostEx, c.taxPositions])).toEqual([
      ['Plan (1 × 300.00: 30 of 91 days)', '98.90', [0]],
      ['Plan (1 × 300.00: 61 of 91 days)', '201.10', [1]],
      ['10% off', '-9.89', [0]],
      ['10% off', '-20.11', [1]],
    ]);
    // 15 %: (98.90 − 9.89) = 89.01, tax 14.84 − 1.48 (1.4835) = 13.36; 15.5 %: 180.99, tax 31.17 − 3.12 (3.11705)
    // = 28.05. Total 270.00 + 41.41 = 311.41.
    expect(figures.taxTotalsMinor).toEqual([1336, 2805]);
    expect(figures.totalMinor).toBe(31141);
  });

  it('taxes a line wholly before the change at 15 %, and one without a period at the invoice date', () => {
    const april: PlannedLine = { ...quarter, unitCostEx: '50.00', periodEnd: '2025-05-01' };
    const may: PlannedLine = {
      ...quarter,
      unitCostEx: '100.00',
      periodStart: '2025-05-01',
      periodEnd: '2025-06-01',
    };
    const setup: PlannedLine = { ...quarter, unitCostEx: '10.00', periodStart: null, periodEnd: null };
    const { charges, taxes } = taxByRates(
      { ...plannedOf([april, may, setup]), invoiceDate: '2025-05-01' },
      rates,
      'ZAR',
    );
    expect(taxes.map((t) => t.perc)).toEqual(['0.15', '0.155']);
    expect(charges.map((c) => c.taxPositions)).toEqual([[0], [1], [1]]);
  });

  it('leaves an invoice at one rate as it was: no positions', () => {
    const may: PlannedLine = { ...quarter, periodStart: '2025-05-01', periodEnd: '2025-06-01' };
    const { charges, taxes } = taxByRates(plannedOf([may]), rates, 'ZAR');
    expect(taxes).toEqual([{ name: 'VAT', perc: '0.155' }]);
    expect(charges).toEqual([may]);
  });

  it('splits a tax-inclusive price on its gross', () => {
    // 345.00 including VAT: 345.00 × 30 / 91 = 113.736… → 113.74 gross at 15 % (net 113.74 / 1.15 = 98.904… →
    // 98.90, VAT 14.84), 231.26 at 15.5 % (net 231.26 / 1.155 = 200.225… → 200.23, VAT 31.03).
    const inclusive: PlannedLine = { ...quarter, unitCostEx: '345.00', isTaxInclusive: true };
    const { charges, figures } = priced(plannedOf([inclusive]));
    expect(charges.map((c) => c.unitCostEx)).toEqual(['113.74', '231.26']);
    expect(figures.charges.map((c) => [c.amountExMinor, c.amountIncMinor])).toEqual([
      [9890, 11374],
      [20023, 23126],
    ]);
    expect(figures.taxTotalsMinor).toEqual([1484, 3103]);
    expect(figures.totalMinor).toBe(34500);
  });
});

describe('creditsForCut across a change of rate', () => {
  const billed = {
    periodNo: 1,
    start: '2025-04-01',
    end: '2025-07-01',
    amountMinor: 30000,
    taxPercs: ['0.15', '0.155'],
    taxParts: [
      { start: '2025-04-01', taxPercs: ['0.15'] },
      { start: '2025-05-01', taxPercs: ['0.155'] },
    ],
  };

  it('credits unused days in June at 15.5 % only', () => {
    // 15 days of 91 unused: 300.00 × 15 / 91 = 49.450… → 49.45, VAT 15.5 % 7.66475 → 7.66: 57.11.
    const { credits } = creditsForCut([billed], '2025-06-16', 'prorata');
    expect(credits).toEqual([
      { periodNo: 1, start: '2025-06-16', end: '2025-07-01', exMinor: 4945, totalMinor: 5711 },
    ]);
  });

  it('credits unused days on both sides at the rates of each', () => {
    // Cut on 21 April: 71 days unused, 300.00 × 71 / 91 = 234.065… → 234.07; 10 of them in April:
    // 234.07 × 10 / 71 = 32.967… → 32.97 at 15 % (4.9455 → 4.95), 201.10 at 15.5 % (31.1705 → 31.17).
    const { credits } = creditsForCut([billed], '2025-04-21', 'prorata');
    expect(credits[0]).toMatchObject({ exMinor: 23407, totalMinor: 23407 + 495 + 3117 });
  });

  it('states what it credits of each part’s taxes when the parts know their positions', () => {
    const positioned = {
      ...billed,
      taxParts: [
        { start: '2025-04-01', taxPercs: ['0.15'], taxPositions: [0] },
        { start: '2025-05-01', taxPercs: ['0.155'], taxPositions: [1] },
      ],
    };
    // 16 June: all 15 days after 1 May, 49.45 + 7.66 = 57.11 at position 1, nothing at position 0.
    expect(creditsForCut([positioned], '2025-06-16', 'prorata').credits[0]!.taxParts).toEqual([
      { positions: [1], amountMinor: 5711, taxesMinor: [766] },
    ]);
    // 21 April: 32.97 + 4.95 = 37.92 at position 0; 201.10 + 31.17 = 232.27 at position 1.
    expect(creditsForCut([positioned], '2025-04-21', 'prorata').credits[0]!.taxParts).toEqual([
      { positions: [0], amountMinor: 3792, taxesMinor: [495] },
      { positions: [1], amountMinor: 23227, taxesMinor: [3117] },
    ]);
  });
});
