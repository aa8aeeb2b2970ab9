import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packageBlocks, pricePackage, validatePackagePrice } from '../catalogue/index.ts';
import type { PackagePrice } from '../catalogue/index.ts';
import { priceUsage, validateBrackets, validateSchemeBrackets } from '../catalogue/index.ts';
import type { Bracket } from '../catalogue/index.ts';
import { chargeUsage } from './usageCharge.ts';

// docs/pricing.md, "Usage schemes": 1–100 at 1.00 + 5.00 flat, 101–1,000 at 0.50 + 10.00 flat, 1,001+ at 0.25.
const FLAT: Bracket[] = [
  { qtyFrom: '1', qtyTill: '100', price: '1.00', flatPrice: '5.00' },
  { qtyFrom: '101', qtyTill: '1000', price: '0.50', flatPrice: '10' },
  { qtyFrom: '1001', qtyTill: null, price: '0.25', flatPrice: null },
];
const FLAT_FROM_ZERO: Bracket[] = FLAT.map((b, i) => (i === 0 ? { ...b, qtyFrom: '0' } : b));

// Stairstep: 1–10 for 20.00, 11–50 for 50.00, 51+ for 100.00.
const STAIRS: Bracket[] = [
  { qtyFrom: '1', qtyTill: '10', price: '0', flatPrice: '20' },
  { qtyFrom: '11', qtyTill: '50', price: '0', flatPrice: '50' },
  { qtyFrom: '51', qtyTill: null, price: '0', flatPrice: '100' },
];

const BLOCKS: PackagePrice = { packageSize: '100', price: '5', freeUnits: null };
const BLOCKS_FREE_50: PackagePrice = { packageSize: '100', price: '5', freeUnits: '50' };

describe('unit (graduated) with flat fees', () => {
  it.each([
    ['0', '0'], // no bracket reached: the first starts at 1
    ['1', '6'], // 1 × 1.00 + 5.00
    ['50', '55'], // 50 × 1.00 + 5.00
    ['100', '105'], // 100 × 1.00 + 5.00
    ['100.5', '115.25'], // 105 + 0.5 × 0.50 + 10.00
    ['101', '115.5'], // 105 + 1 × 0.50 + 10.00
    ['1000', '565'], // 105 + 900 × 0.50 + 10.00
    ['1001', '565.25'], // 565 + 1 × 0.25 (no flat fee on the last bracket)
    ['1500', '690'], // 565 + 500 × 0.25
  ])('charges %s units as %s', (quantity, expected) => {
    expect(priceUsage('unit', FLAT, quantity)).toBe(expected);
  });

  it('charges the first flat fee for 0 units only when the first bracket starts at 0', () => {
    expect(priceUsage('unit', FLAT_FROM_ZERO, '0')).toBe('5'); // 0 × 1.00 + 5.00
    expect(priceUsage('unit', FLAT_FROM_ZERO, '1')).toBe('6'); // as from 1
  });
});

describe('volume with flat fees', () => {
  it.each([
    ['0', '0'], // in no bracket
    ['1', '6'], // 1 × 1.00 + 5.00
    ['100', '105'], // 100 × 1.00 + 5.00
    ['100.5', '60.25'], // 100.5 × 0.50 + 10.00: above 100, so in 101–1,000
    ['101', '60.5'], // 101 × 0.50 + 10.00
    ['1000', '510'], // 1000 × 0.50 + 10.00
    ['1001', '250.25'], // 1001 × 0.25
    ['1500', '375'], // 1500 × 0.25
  ])('charges %s units as %s', (quantity, expected) => {
    expect(priceUsage('volume', FLAT, quantity)).toBe(expected);
  });

  it('charges the first flat fee for 0 units only when the first bracket starts at 0', () => {
    expect(priceUsage('volume', FLAT_FROM_ZERO, '0')).toBe('5'); // 0 × 1.00 + 5.00
  });
});

describe('stairstep', () => {
  it.each([
    ['0', '0'], // in no bracket
    ['0.5', '20'], // in 1–10
    ['1', '20'],
    ['10', '20'],
    ['10.5', '50'], // above 10, so in 11–50
    ['11', '50'],
    ['50', '50'],
    ['51', '100'],
    ['1000000', '100'],
  ])('charges %s units as %s', (quantity, expected) => {
    expect(priceUsage('stairstep', STAIRS, quantity)).toBe(expected);
  });

  it('charges the first step for 0 units when the first bracket starts at 0', () => {
    const fromZero = STAIRS.map((b, i) => (i === 0 ? { ...b, qtyFrom: '0' } : b));
    expect(priceUsage('stairstep', fromZero, '0')).toBe('20');
  });

  it('needs a FlatPrice on each bracket and a Price of 0', () => {
    const bad: Bracket[] = [
      { qtyFrom: '1', qtyTill: '10', price: '1', flatPrice: '20' },
      { qtyFrom: '11', qtyTill: null, price: '0' },
    ];
    expect(validateSchemeBrackets('stairstep', bad)).toEqual([
      {
        index: 0,
        field: 'price',
        message: 'Price must be 0 under the stairstep scheme (the bracket charges its FlatPrice)',
      },
      { index: 1, field: 'flatPrice', message: 'FlatPrice is required under the stairstep scheme' },
    ]);
    expect(validateSchemeBrackets('volume', bad)).toEqual([]);
    expect(() => priceUsage('stairstep', bad, '1')).toThrow(/bracket 0: Price must be 0/);
  });
});

describe('package', () => {
  it.each([
    [BLOCKS, '0', '0'], // 0 blocks
    [BLOCKS, '1', '5'], // ceil(1 / 100) = 1 block × 5.00
    [BLOCKS, '100', '5'], // ceil(100 / 100) = 1
    [BLOCKS, '100.0001', '10'], // ceil(100.0001 / 100) = 2
    [BLOCKS, '250', '15'], // ceil(2.5) = 3 × 5.00
    [BLOCKS_FREE_50, '50', '0'], // all free
    [BLOCKS_FREE_50, '50.5', '5'], // ceil(0.5 / 100) = 1
    [BLOCKS_FREE_50, '150', '5'], // ceil(100 / 100) = 1
    [BLOCKS_FREE_50, '151', '10'], // ceil(101 / 100) = 2
    [BLOCKS_FREE_50, '350.5', '20'], // ceil(300.5 / 100) = 4 × 5.00
    [{ packageSize: '1', price: '0.0125', freeUnits: '0' }, '3', '0.0375'], // 3 × 0.0125
    [{ packageSize: '1000000000000000', price: '1', freeUnits: null }, '1000000000000000.0001', '2'], // 2 blocks
  ])('charges %j for %s units as %s', (pack, quantity, expected) => {
    expect(pricePackage(pack, quantity)).toBe(expected);
  });

  it.each([
    [{ packageSize: '0' }, 'packageSize', 'PackageSize must be a whole number of units, at least 1'],
    [{ packageSize: '2.5' }, 'packageSize', 'PackageSize must be a whole number of units, at least 1'],
    [{ packageSize: '-1' }, 'packageSize', 'PackageSize must be a whole number of units, at least 1'],
    [{ price: '-1' }, 'price', 'Price must be a non-negative decimal number'],
    [{ price: '0.00001' }, 'price', 'Price must have at most 4 decimals'],
    [{ freeUnits: '1.5' }, 'freeUnits', 'FreeUnits must be a whole number of units, 0 or more'],
    [{ freeUnits: '-1' }, 'freeUnits', 'FreeUnits must be a whole number of units, 0 or more'],
  ] as const)('refuses %j naming %s', (change, field, message) => {
    expect(validatePackagePrice({ ...BLOCKS, ...change })).toEqual([{ field, message }]);
    expect(() => pricePackage({ ...BLOCKS, ...change }, '1')).toThrow(RangeError);
  });
});

describe('FlatPrice in the bracket rules', () => {
  it.each([
    ['-1', 'FlatPrice must be a non-negative decimal number'],
    ['1e1', 'FlatPrice must be a non-negative decimal number'],
    ['0.00001', 'FlatPrice must have at most 4 decimals'],
  ])('refuses %s', (flatPrice, message) => {
    const brackets = FLAT.map((b, i) => (i === 1 ? { ...b, flatPrice } : b));
    expect(validateBrackets(brackets)).toEqual([{ index: 1, field: 'flatPrice', message }]);
  });
});

describe('chargeUsage: the amount and the line breakdown', () => {
  const tiered: Bracket[] = FLAT.map((b) => ({ ...b, flatPrice: null }));
  const INCLUDED: Bracket[] = [
    { qtyFrom: '1', qtyTill: '1000', price: '0' },
    { qtyFrom: '1001', qtyTill: null, price: '0.05' },
  ];
  it.each([
    // No flat fees, several rates: how many units at each. 100 × 1.00 + 900 × 0.50 + 500 × 0.25 = 675
    [{ scheme: 'unit', brackets: tiered }, '1500', '675', '100 at 1.00; 900 at 0.50; 500 at 0.25'],
    // One rate for the whole quantity: the line keeps its old shape. 1500 × 0.25
    [{ scheme: 'volume', brackets: tiered }, '1500', '375', null],
    [{ scheme: 'unit', brackets: tiered }, '60', '60', null], // 60 × 1.00, all in the first bracket
    // Included units (a bracket at 0.00): 1,000 free, then 101 × 0.05 = 5.05
    [{ scheme: 'unit', brackets: INCLUDED }, '1101', '5.05', '1,000 included; 101 at 0.05'],
    [{ scheme: 'unit', brackets: INCLUDED }, '999.5', '0', '999.5 included'],
    [{ scheme: 'volume', brackets: INCLUDED }, '20', '0', '20 included'],
    [
      { scheme: 'unit', brackets: FLAT },
      '1500',
      '690',
      '1–100 units at 1.00 + 5.00 flat; 101–1,000 units at 0.50 + 10.00 flat; 1,001+ units at 0.25',
    ],
    [{ scheme: 'unit', brackets: FLAT }, '0', '0', null],
    [{ scheme: 'unit', brackets: FLAT_FROM_ZERO }, '0', '5', '0–100 units at 1.00 + 5.00 flat'],
    [{ scheme: 'volume', brackets: FLAT }, '101', '60.5', '101–1,000 units at 0.50 + 10.00 flat'],
    [{ scheme: 'stairstep', brackets: STAIRS }, '11', '50', '11–50 units: 50.00 flat'],
    [{ scheme: 'stairstep', brackets: STAIRS }, '0', '0', null],
    [{ scheme: 'package', brackets: [], pack: BLOCKS }, '250', '15', '3 blocks of 100 at 5.00'],
    [{ scheme: 'package', brackets: [], pack: BLOCKS }, '1', '5', '1 block of 100 at 5.00'],
    [
      { scheme: 'package', brackets: [], pack: BLOCKS_FREE_50 },
      '350.5',
      '20',
      'first 50 free, 4 blocks of 100 at 5.00',
    ],
    [
      { scheme: 'package', brackets: [], pack: { packageSize: '1000', price: '0.125', freeUnits: '0' } },
      '2500',
      '0.375',
      '3 blocks of 1,000 at 0.125',
    ],
  ] as const)('prices case %# exactly, with its breakdown', (price, quantity, amount, detail) => {
    expect(chargeUsage(price, quantity)).toEqual({ amount, detail });
  });

  it('shortens the breakdown when more than 5 brackets are reached', () => {
    // 1–1, 2–2, ..., 7–7, 8+ with a 1.00 flat fee each: 8 units reach all 8 brackets, 8 × (1.00 + 1.00) = 16.
    const many: Bracket[] = Array.from({ length: 8 }, (_, i) => ({
      qtyFrom: String(i + 1),
      qtyTill: i === 7 ? null : String(i + 1),
      price: '1',
      flatPrice: '1',
    }));
    expect(chargeUsage({ scheme: 'unit', brackets: many }, '8')).toEqual({
      amount: '16',
      detail:
        '1–1 units at 1.00 + 1.00 flat; 2–2 units at 1.00 + 1.00 flat; … 4 more brackets …; ' +
        '7–7 units at 1.00 + 1.00 flat; 8+ units at 1.00 + 1.00 flat',
    });
  });

  it('refuses the package scheme without its blocks', () => {
    expect(() => chargeUsage({ scheme: 'package', brackets: [] }, '1')).toThrow(RangeError);
    expect(() => priceUsage('package', FLAT, '1')).toThrow(RangeError);
  });
});

/** An exact decimal string as an integer count of 10^-4. */
const scaled4 = (text: string): bigint => {
  const [whole = '', fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(4, '0'));
};
const fromScaled4 = (value: bigint): string => {
  const text = value.toString().padStart(5, '0');
  const fraction = text.slice(-4).replace(/0+$/, '');
  return fraction ? `${text.slice(0, -4)}.${fraction}` : text.slice(0, -4);
};

describe('pricing scheme properties', () => {
  const price4 = fc.bigInt({ min: 0n, max: 200_000n }).map(fromScaled4);
  const bracketsArb = fc
    .record({
      firstFrom: fc.constantFrom('0', '1'),
      widths: fc.array(fc.bigInt({ min: 1n, max: 40n }), { maxLength: 4 }),
      prices: fc.array(price4, { minLength: 5, maxLength: 5 }),
      flats: fc.array(fc.option(price4), { minLength: 5, maxLength: 5 }),
    })
    .map(({ firstFrom, widths, prices, flats }) => {
      const brackets: Bracket[] = [];
      let qtyFrom: string = firstFrom;
      let till = 0n;
      widths.forEach((width, i) => {
        till += width;
        brackets.push({ qtyFrom, qtyTill: till.toString(), price: prices[i]!, flatPrice: flats[i] ?? null });
        qtyFrom = (till + 1n).toString();
      });
      brackets.push({
        qtyFrom,
        qtyTill: null,
        price: prices[widths.length]!,
        flatPrice: flats[widths.length] ?? null,
      });
      return brackets;
    });
  const quantity = (brackets: Bracket[]) => {
    const max = (BigInt(brackets.at(-1)!.qtyFrom) + 30n) * 10_000n;
    return fc.oneof(
      fc.constant(0n),
      fc.bigInt({ min: 0n, max }),
      fc.bigInt({ min: 0n, max: max / 10_000n }).map((u) => u * 10_000n),
    );
  };
  const withQuantity = bracketsArb.chain((b) => fc.tuple(fc.constant(b), quantity(b)));

  it('charges graduated with flat fees as the sum over the brackets reached', () => {
    fc.assert(
      fc.property(withQuantity, ([brackets, q]) => {
        // Each bracket covers (lower, upper]; the first also holds 0 when it starts at 0. In 10^-8.
        let expected = 0n;
        let lower = 0n;
        brackets.forEach((b, i) => {
          const upper = b.qtyTill === null ? null : BigInt(b.qtyTill) * 10_000n;
          const reached = q > lower || (q === 0n && i === 0 && b.qtyFrom === '0');
          if (reached) {
            const top = upper !== null && upper < q ? upper : q;
            expected += scaled4(b.flatPrice ?? '0') * 10_000n + (top - lower) * scaled4(b.price);
          }
          if (upper !== null) lower = upper;
        });
        const charged = priceUsage('unit', brackets, fromScaled4(q));
        const [whole = '', fraction = ''] = charged.split('.');
        expect(BigInt(whole + fraction.padEnd(8, '0'))).toBe(expected);
      }),
    );
  });

  it('charges stairstep the flat fee of the bracket found by binary search', () => {
    const stairs = bracketsArb.map((brackets) =>
      brackets.map((b) => ({ ...b, price: '0', flatPrice: b.flatPrice ?? '1.5' })),
    );
    fc.assert(
      fc.property(
        stairs.chain((b) => fc.tuple(fc.constant(b), quantity(b))),
        ([brackets, q]) => {
          // The first bracket whose upper bound (QtyTill, or infinity when open) is at or above q.
          let lo = 0;
          let hi = brackets.length - 1;
          while (lo < hi) {
            const mid = (lo + hi) >> 1;
            const till = brackets[mid]!.qtyTill;
            if (till !== null && BigInt(till) * 10_000n < q) lo = mid + 1;
            else hi = mid;
          }
          const inNone = q === 0n && brackets[0]!.qtyFrom !== '0';
          const expected = inNone ? '0' : fromScaled4(scaled4(brackets[lo]!.flatPrice!));
          expect(priceUsage('stairstep', brackets, fromScaled4(q))).toBe(expected);
        },
      ),
    );
  });

  const packArb = fc.record({
    packageSize: fc.bigInt({ min: 1n, max: 500n }).map(String),
    price: price4,
    freeUnits: fc.option(fc.bigInt({ min: 0n, max: 300n }).map(String)),
  });
  const qtyArb = fc.bigInt({ min: 0n, max: 20_000_000n }); // 0 to 2,000 in 10^-4

  it('never lowers a package charge as the quantity grows', () => {
    fc.assert(
      fc.property(packArb, qtyArb, qtyArb, (pack, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const charge = (q: bigint) => scaled4(pricePackage(pack, fromScaled4(q)));
        expect(charge(low) <= charge(high)).toBe(true);
      }),
    );
  });

  it('never charges a partial block as more than one block', () => {
    fc.assert(
      fc.property(packArb, qtyArb, (pack, q) => {
        const size = BigInt(pack.packageSize) * 10_000n;
        const billable = q - BigInt(pack.freeUnits ?? '0') * 10_000n;
        const blocks = BigInt(packageBlocks(pack, fromScaled4(q)).toFixed());
        if (billable <= 0n) {
          expect(blocks).toBe(0n);
          return;
        }
        // The fewest whole blocks that hold the billable units: enough, and one fewer is not.
        expect(blocks * size >= billable).toBe(true);
        expect((blocks - 1n) * size < billable).toBe(true);
        expect(pricePackage(pack, fromScaled4(q))).toBe(fromScaled4(blocks * scaled4(pack.price)));
      }),
    );
  });
});
