import { describe, expect, it } from 'vitest';
import { splitStatedByRate, vatReportOf } from './vatReport.ts';
import type { ReportDocument } from './vatReport.ts';

const document = (
  rates: string,
  amountExMinor: number,
  taxMinor: number,
  currencyCode = 'ZAR',
): ReportDocument => ({
  kind: amountExMinor < 0 ? 'credit_note' : 'invoice',
  number: '1',
  date: '2025-05-01',
  invoiceId: 1,
  invoiceNum: 1,
  taxCreditNoteId: null,
  paymentId: null,
  customerId: 1,
  customerName: 'Ada',
  vatNo: null,
  currencyCode,
  category: taxMinor === 0 ? 'exempt' : 'standard',
  rates,
  amountExMinor,
  taxMinor,
  amountIncMinor: amountExMinor + taxMinor,
});

describe('vatReportOf, by rate', () => {
  it('sums each currency’s documents per rate, credit notes netted, ordered by the rates’ text', () => {
    const [usd, zar] = vatReportOf([
      document('VAT 15.5%', 20000, 3100),
      document('VAT 15%', 10000, 1500),
      document('', 4000, 0),
      document('VAT 15.5%', -2000, -310),
      document('VAT 15%', 5000, 750, 'USD'),
    ]);
    expect(usd!.byRate).toEqual([
      { rates: 'VAT 15%', figures: { amountExMinor: 5000, taxMinor: 750, amountIncMinor: 5750 } },
    ]);
    expect(zar!.byRate).toEqual([
      { rates: '', figures: { amountExMinor: 4000, taxMinor: 0, amountIncMinor: 4000 } },
      { rates: 'VAT 15%', figures: { amountExMinor: 10000, taxMinor: 1500, amountIncMinor: 11500 } },
      { rates: 'VAT 15.5%', figures: { amountExMinor: 18000, taxMinor: 2790, amountIncMinor: 20790 } },
    ]);
    expect(zar!.byRate.reduce((sum, group) => sum + group.figures.taxMinor, 0)).toBe(zar!.outputTaxMinor);
  });
});

describe('splitStatedByRate', () => {
  const shares = [
    { rates: 'VAT 15%', totalMinor: 11374, taxMinor: 1484, positions: [0] },
    { rates: 'VAT 15.5%', totalMinor: 23227, taxMinor: 3117, positions: [1] },
  ];

  it('puts a cut’s credit on the rate its days bore, and gives the other rate no row', () => {
    // The 16 June cancel of the quarter: −57.11 with VAT −7.66, all at 15.5 % (position 1).
    const rows = splitStatedByRate({ ...document('VAT 15%, VAT 15.5%', -4945, -766) }, shares, [
      { positions: [1], amountMinor: -5711, taxesMinor: [-766] },
    ]);
    expect(rows.map((row) => [row.rates, row.amountExMinor, row.taxMinor, row.amountIncMinor])).toEqual([
      ['VAT 15.5%', -4945, -766, -5711],
    ]);
  });

  it('shares what states no rate as splitByRate does, beside what does', () => {
    // −100.00 with VAT −13.00, of which −57.11 / −7.66 stated at 15.5 %; the rest −42.89 / −5.34 shared by the
    // rates' AmountInc 113.74 : 232.27 (14.098…, 28.791…: floors 14.09 and 28.79, the cent to the larger remainder)
    // and VAT 14.84 : 31.17 (1.722…, 3.617…: 1.72 and 3.62).
    const rows = splitStatedByRate({ ...document('VAT 15%, VAT 15.5%', -8700, -1300) }, shares, [
      { positions: [1], amountMinor: -5711, taxesMinor: [-766] },
    ]);
    expect(rows.map((row) => [row.rates, row.taxMinor, row.amountIncMinor])).toEqual([
      ['VAT 15%', -172, -1410],
      ['VAT 15.5%', -362 - 766, -2879 - 5711],
    ]);
  });
});
