import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shareByWeights, taxShareOf } from './taxShare.ts';

describe('taxShareOf', () => {
  it('is the part × tax / total, rounded half away from zero', () => {
    const invoice = { totalMinor: 11500, taxMinor: 1500 };
    // 23.00 × 15.00 / 115.00 = 3.00; 10.00 → 1.304… → 1.30; 20.00 → 2.608… → 2.61.
    expect(taxShareOf(invoice, 2300)).toBe(300);
    expect(taxShareOf(invoice, 1000)).toBe(130);
    expect(taxShareOf(invoice, 2000)).toBe(261);
    expect(taxShareOf(invoice, 11500)).toBe(1500);
    expect(taxShareOf(invoice, -1000)).toBe(-130);
  });

  it('is 0 on a document without tax or with nothing to share', () => {
    expect(taxShareOf({ totalMinor: 10000, taxMinor: 0 }, 5000)).toBe(0);
    expect(taxShareOf({ totalMinor: 0, taxMinor: 0 }, 5000)).toBe(0);
  });
});

describe('shareByWeights', () => {
  it('shares by the largest remainder, the parts adding up exactly', () => {
    // 1.45 over taxes of 12.82 and 1.71: 145 × 1282 / 1453 = 127.9… and 17.06…: floors 127 and 17, one cent left
    // to the larger remainder (the first).
    expect(shareByWeights(145, [1282, 171])).toEqual([128, 17]);
    expect(shareByWeights(-145, [1282, 171])).toEqual([-128, -17]);
    expect(shareByWeights(10, [0, 0])).toEqual([10, 0]);
    expect(shareByWeights(10, [])).toEqual([]);
  });

  it('always adds up to the amount, each part within a unit of its proportion', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 5 }),
        (amount, weights) => {
          const parts = shareByWeights(amount, weights);
          expect(parts.reduce((a, b) => a + b, 0)).toBe(amount);
          const sum = weights.reduce((a, b) => a + b, 0);
          parts.forEach((part, i) => expect(Math.abs(part - (amount * weights[i]!) / sum)).toBeLessThan(1));
        },
      ),
    );
  });
});
