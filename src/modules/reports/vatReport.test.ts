import { describe, expect, it } from 'vitest';
import { vatReportOf } from './vatReport.ts';
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
