import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priceInvoice } from './invoiceMath.ts';

const percs = fc.array(
  fc.integer({ min: 0, max: 1_000_000 }).map((n) => (n / 1_000_000).toFixed(6)),
  { maxLength: 4 },
);

describe('priceInvoice with tax-inclusive lines', () => {
  it('prices an inclusive line from its gross and leaves exclusive lines as they were', () => {
    // Inclusive 3 × 10.00 = 30.00 at 15% and 2%: 3000 / 1.17 = 2564.10… → 2564; tax 436;
    // 436 × 15/17 = 384.70…, 436 × 2/17 = 51.29…; floors 384 + 51 = 435, the 1 left to the larger remainder
    // (0.70 of the first): 385 and 51. Exclusive 1 × 10.00: 150 and 20, inc 1170.
    const priced = priceInvoice(
      [
        { qty: '3', unitCostEx: '10.00', isTaxInclusive: true },
        { qty: '1', unitCostEx: '10.00' },
      ],
      ['0.15', '0.02'],
      'USD',
    );
    expect(priced).toEqual({
      charges: [
        { amountExMinor: 2564, taxMinor: [385, 51], amountIncMinor: 3000 },
        { amountExMinor: 1000, taxMinor: [150, 20], amountIncMinor: 1170 },
      ],
      taxTotalsMinor: [535, 71], // 385 + 150; 51 + 20
      exTotalMinor: 3564, // 2564 + 1000
      totalMinor: 4170, // 3000 + 1170
    });
  });

  it('an inclusive line pays exactly Qty × the listed price, an exclusive one exactly as before', () => {
    const line = fc.record({
      qty: fc.integer({ min: -1000, max: 1000 }).map(String),
      unitCostEx: fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => (n / 10_000).toFixed(4)),
    });
    fc.assert(
      fc.property(line, percs, (l, p) => {
        const inclusive = priceInvoice([{ ...l, isTaxInclusive: true }], p, 'USD').charges[0]!;
        const exclusive = priceInvoice([l], p, 'USD').charges[0]!;
        const listed = priceInvoice([l], [], 'USD').charges[0]!.amountExMinor;
        expect(inclusive.amountIncMinor).toBe(listed);
        expect(inclusive.taxMinor.reduce((a, b) => a + b, inclusive.amountExMinor)).toBe(listed);
        expect(exclusive.amountExMinor).toBe(listed);
        expect(priceInvoice([{ ...l, isTaxInclusive: false }], p, 'USD').charges[0]).toEqual(exclusive);
      }),
    );
  });
});
