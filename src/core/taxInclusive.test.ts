import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { netUnitPrice, splitInclusive } from './taxInclusive.ts';

const percs = fc.array(
  fc.integer({ min: 0, max: 1_000_000 }).map((n) => (n / 1_000_000).toFixed(6)),
  { maxLength: 4 },
);
const gross = fc.integer({ min: -10_000_000_000, max: 10_000_000_000 });

describe('splitInclusive', () => {
  it.each([
    // 10.00 at 15%: 1000 / 1.15 = 869.56… → 870; tax 1000 − 870 = 130.
    { name: 'single rate', gross: 1000, percs: ['0.15'], net: 870, taxes: [130] },
    // 100.00 at 15% and 2%: 10000 / 1.17 = 8547.008… → 8547; tax 1453; shares 1453 × 15/17 = 1282.05…,
    // 1453 × 2/17 = 170.94…; floors 1282 + 170 = 1452 leave 1, to the larger remainder (the second).
    { name: 'two rates', gross: 10000, percs: ['0.15', '0.02'], net: 8547, taxes: [1282, 171] },
    // 1.00 at 20%: 100 / 1.2 = 83.33… → 83; tax 17.
    { name: 'a third of a cent', gross: 100, percs: ['0.2'], net: 83, taxes: [17] },
    // 0.05 at 25%: 5 / 1.25 = 4; tax 1.
    { name: 'exact division', gross: 5, percs: ['0.25'], net: 4, taxes: [1] },
    // 10.00 at 15%: 870 + 870 × 0.15 = 870 + 130.5 → 131 = 1001, a cent over: the split keeps 130.
    { name: 'naive rounding off by a cent', gross: 1000, percs: ['0.15'], net: 870, taxes: [130] },
    // Three equal taxes of 5%: 1.00 / 1.15 = 86.95… → 87; tax 13; 13/3 = 4.33 each; floors 4,4,4 leave 1;
    // equal remainders and percs: to the first.
    { name: 'tie to the first', gross: 100, percs: ['0.05', '0.05', '0.05'], net: 87, taxes: [5, 4, 4] },
    // Zero-rated tax beside 20%: 12.00 / 1.2 = 10.00; tax 2.00, all of it to the 20% tax.
    { name: 'zero-rated tax', gross: 1200, percs: ['0', '0.2'], net: 1000, taxes: [0, 200] },
    // No taxes: the net is the gross.
    { name: 'no taxes', gross: 1234, percs: [], net: 1234, taxes: [] },
    // A discount mirrors the charge: -10.00 at 15% → -8.70 and -1.30.
    { name: 'negative line', gross: -1000, percs: ['0.15'], net: -870, taxes: [-130] },
    // Zero.
    { name: 'zero', gross: 0, percs: ['0.15', '0.02'], net: 0, taxes: [0, 0] },
  ])('$name', ({ gross, percs, net, taxes }) => {
    expect(splitInclusive(gross, percs)).toEqual({ netMinor: net, taxMinor: taxes });
  });

  it('net + taxes = gross exactly, for every amount and rate set', () => {
    fc.assert(
      fc.property(gross, percs, (g, p) => {
        const { netMinor, taxMinor } = splitInclusive(g, p);
        expect(taxMinor.reduce((a, b) => a + b, netMinor)).toBe(g);
        expect(taxMinor).toHaveLength(p.length);
      }),
    );
  });

  it('the net is gross / (1 + Σ percs) to the nearest minor unit', () => {
    fc.assert(
      fc.property(gross, percs, (g, p) => {
        const { netMinor } = splitInclusive(g, p);
        // |net × (1 + Σ) − g| ≤ (1 + Σ) / 2, in millionths so the check is on integers.
        const sum = p.reduce((a, x) => a + Math.round(Number(x) * 1_000_000), 0) + 1_000_000;
        const diff = BigInt(netMinor) * BigInt(sum) - BigInt(g) * 1_000_000n;
        expect((diff < 0n ? -diff : diff) * 2n <= BigInt(sum)).toBe(true);
      }),
    );
  });

  it('each tax is less than one minor unit from its share in proportion to the percs', () => {
    fc.assert(
      fc.property(gross, percs, (g, p) => {
        const { netMinor, taxMinor } = splitInclusive(g, p);
        const units = p.map((x) => BigInt(Math.round(Number(x) * 1_000_000)));
        const sum = units.reduce((a, b) => a + b, 0n);
        const tax = BigInt(g - netMinor);
        taxMinor.forEach((t, i) => {
          if (sum === 0n) return expect(t).toBe(0);
          // |t − tax × u / Σ| < 1  ⇔  |t × Σ − tax × u| < Σ
          const diff = BigInt(t) * sum - tax * units[i]!;
          expect((diff < 0n ? -diff : diff) < sum).toBe(true);
        });
      }),
    );
  });

  it('with one rate, the tax is within one minor unit of net × perc', () => {
    fc.assert(
      fc.property(gross, fc.integer({ min: 0, max: 1_000_000 }), (g, u) => {
        const { netMinor, taxMinor } = splitInclusive(g, [(u / 1_000_000).toFixed(6)]);
        const diff = BigInt(taxMinor[0]!) * 1_000_000n - BigInt(netMinor) * BigInt(u);
        expect((diff < 0n ? -diff : diff) <= 1_000_000n).toBe(true);
      }),
    );
  });

  it('a discount is the mirror of the charge', () => {
    fc.assert(
      fc.property(gross, percs, (g, p) => {
        const plus = splitInclusive(g, p);
        const minus = splitInclusive(-g, p);
        expect(minus.netMinor).toBe(-plus.netMinor + 0);
        expect(minus.taxMinor).toEqual(plus.taxMinor.map((t) => -t + 0));
      }),
    );
  });
});

describe('netUnitPrice', () => {
  it.each([
    // 10.00 / 1.15 = 8.695652… → 8.6957
    ['10.00', ['0.15'], 4, '8.6957'],
    // 100 / 1.17 = 85.470085… → 85.4701
    ['100', ['0.15', '0.02'], 4, '85.4701'],
    // -10.00 / 1.15 → -8.6957
    ['-10.00', ['0.15'], 4, '-8.6957'],
    // no taxes: the price itself
    ['12.5', [], 4, '12.5000'],
  ])('%s at %j is %s', (price, taxes, decimals, expected) => {
    expect(netUnitPrice(price, taxes as string[], decimals as number)).toBe(expected);
  });
});
