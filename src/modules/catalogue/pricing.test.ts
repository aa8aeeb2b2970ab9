import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priceUsage, validateBrackets, type Bracket, type Scheme } from './pricing.ts';

// The worked example of pricing.ts: 1–10 at 1.00, 11–20 at 0.80, 21+ at 0.50.
const TIERED: Bracket[] = [
  { qtyFrom: '1', qtyTill: '10', price: '1.00' },
  { qtyFrom: '11', qtyTill: '20', price: '0.80' },
  { qtyFrom: '21', qtyTill: null, price: '0.50' },
];

const CANONICAL = /^(0|[1-9]\d*)(\.\d*[1-9])?$/;

/** An exact decimal string as an integer count of 10^-digits; throws if it has more digits than that. */
function toScaled(text: string, digits: number): bigint {
  const [whole = '', fraction = ''] = text.split('.');
  if (fraction.length > digits) throw new Error(`${text} has more than ${digits} decimals`);
  return BigInt(whole + fraction.padEnd(digits, '0'));
}

function fromScaled(value: bigint, digits: number, pad = false): string {
  const text = value.toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = text.slice(text.length - digits);
  const shown = pad ? fraction : fraction.replace(/0+$/, '');
  return shown ? `${whole}.${shown}` : whole;
}

describe('priceUsage', () => {
  it.each([
    // unit: 10 × 1.00 + 10 × 0.80 + the rest × 0.50
    ['0', '0'],
    ['1', '1'], // 1 × 1.00
    ['10', '10'], // 10 × 1.00
    ['10.5', '10.4'], // 10 × 1.00 + 0.5 × 0.80
    ['11', '10.8'], // 10 × 1.00 + 1 × 0.80
    ['20', '18'], // 10 × 1.00 + 10 × 0.80
    ['20.0001', '18.00005'], // 18 + 0.0001 × 0.50
    ['21', '18.5'], // 18 + 1 × 0.50
    ['25', '20.5'], // 18 + 5 × 0.50
    ['1000000', '500008'], // 18 + 999980 × 0.50
  ])('charges unit (graduated) quantity %s as %s', (quantity, expected) => {
    expect(priceUsage('unit', TIERED, quantity)).toBe(expected);
  });

  it.each([
    ['0', '0'],
    ['0.5', '0.5'], // 0.5 × 1.00
    ['1', '1'], // 1 × 1.00
    ['10', '10'], // 10 × 1.00
    ['10.5', '8.4'], // 10.5 × 0.80: above QtyTill 10, so in 11..20
    ['11', '8.8'], // 11 × 0.80
    ['20', '16'], // 20 × 0.80
    ['20.0001', '10.00005'], // 20.0001 × 0.50
    ['21', '10.5'], // 21 × 0.50
    ['25', '12.5'], // 25 × 0.50
    ['1000000', '500000'], // 1000000 × 0.50
  ])('charges volume quantity %s as %s', (quantity, expected) => {
    expect(priceUsage('volume', TIERED, quantity)).toBe(expected);
  });

  it('reads a first QtyFrom of 0 the same as 1', () => {
    const fromZero = TIERED.map((bracket, index) => (index === 0 ? { ...bracket, qtyFrom: '0' } : bracket));
    for (const quantity of ['0', '0.25', '1', '10', '10.5', '11', '25']) {
      expect(priceUsage('unit', fromZero, quantity)).toBe(priceUsage('unit', TIERED, quantity));
      expect(priceUsage('volume', fromZero, quantity)).toBe(priceUsage('volume', TIERED, quantity));
    }
  });

  it('is exact where binary floats are not', () => {
    const single: Bracket[] = [{ qtyFrom: '1', qtyTill: null, price: '0.1' }];
    expect(3 * 0.1).not.toBe(0.3);
    expect(priceUsage('unit', single, '3')).toBe('0.3');
    expect(priceUsage('volume', single, '3')).toBe('0.3');

    const tenThousandth: Bracket[] = [{ qtyFrom: '1', qtyTill: null, price: '0.0001' }];
    expect(priceUsage('unit', tenThousandth, '1000000')).toBe('100');
    expect(priceUsage('volume', tenThousandth, '1000000')).toBe('100');
  });

  it('never answers in exponent form, however small or large the result', () => {
    const tenThousandth: Bracket[] = [{ qtyFrom: '0', qtyTill: null, price: '0.0001' }];
    expect(priceUsage('unit', tenThousandth, '0.0001')).toBe('0.00000001');
    expect(priceUsage('volume', tenThousandth, '123456789012345678901234567890')).toBe(
      '12345678901234567890123456.789',
    );
  });

  it('does not round: the money module rounds once, later', () => {
    const brackets: Bracket[] = [{ qtyFrom: '1', qtyTill: null, price: '0.0125' }];
    expect(priceUsage('unit', brackets, '7')).toBe('0.0875'); // 7 × 0.0125
    expect(priceUsage('unit', brackets, '0.333')).toBe('0.0041625'); // 0.333 × 0.0125
  });

  it('charges nothing inside a free bracket and prices only the excess in unit', () => {
    const freeFirst: Bracket[] = [
      { qtyFrom: '1', qtyTill: '100', price: '0' },
      { qtyFrom: '101', qtyTill: null, price: '0.05' },
    ];
    expect(priceUsage('unit', freeFirst, '100')).toBe('0');
    expect(priceUsage('unit', freeFirst, '150')).toBe('2.5'); // 100 × 0 + 50 × 0.05
    expect(priceUsage('volume', freeFirst, '100')).toBe('0');
    expect(priceUsage('volume', freeFirst, '150')).toBe('7.5'); // 150 × 0.05
  });

  it('lets a volume charge drop when the quantity reaches a cheaper bracket', () => {
    // 10 × 1.00 = 10.00 > 11 × 0.80 = 8.80: the nature of volume pricing.
    expect(new Big(priceUsage('volume', TIERED, '10')).gt(priceUsage('volume', TIERED, '11'))).toBe(true);
  });

  it.each(['-1', '-0.5', '-0'])('refuses the negative quantity %s with a RangeError', (quantity) => {
    expect(() => priceUsage('unit', TIERED, quantity)).toThrow(RangeError);
    expect(() => priceUsage('volume', TIERED, quantity)).toThrow(/negative/);
  });

  it.each(['', 'abc', '1e3', ' 1', '1.', '.5', '0x10', 'Infinity', 'NaN'])(
    'refuses the quantity %j that is not a plain decimal',
    (quantity) => {
      expect(() => priceUsage('unit', TIERED, quantity)).toThrow(RangeError);
    },
  );

  it('refuses an unknown scheme', () => {
    expect(() => priceUsage('tiered' as Scheme, TIERED, '1')).toThrow(RangeError);
  });

  it('refuses invalid brackets instead of mispricing them, naming the bracket', () => {
    const gap: Bracket[] = [
      { qtyFrom: '1', qtyTill: '10', price: '1' },
      { qtyFrom: '12', qtyTill: null, price: '0.5' },
    ];
    expect(() => priceUsage('unit', gap, '11')).toThrow(/bracket 1: gap/);
    expect(() => priceUsage('volume', [], '1')).toThrow(RangeError);
    const closed: Bracket[] = [{ qtyFrom: '1', qtyTill: '10', price: '1' }];
    expect(() => priceUsage('volume', closed, '11')).toThrow(/bracket 0: the last bracket must be open/);
  });
});

describe('validateBrackets', () => {
  const valid = (brackets: Bracket[]) => expect(validateBrackets(brackets)).toEqual([]);

  it('accepts the worked example, a single open bracket, a first QtyFrom of 0, and padded decimals', () => {
    valid(TIERED);
    valid([{ qtyFrom: '1', qtyTill: null, price: '0' }]);
    valid([{ qtyFrom: '0', qtyTill: null, price: '2.5' }]);
    valid([
      { qtyFrom: '0', qtyTill: '10.0', price: '0.80000' },
      { qtyFrom: '11', qtyTill: null, price: '0.0125' },
    ]);
  });

  it('requires at least one bracket', () => {
    expect(validateBrackets([])).toEqual([{ index: -1, message: 'at least one bracket is required' }]);
  });

  it.each(['2', '11'])('requires the first QtyFrom to be 0 or 1, not %s', (qtyFrom) => {
    expect(validateBrackets([{ qtyFrom, qtyTill: null, price: '1' }])).toEqual([
      { index: 0, field: 'qtyFrom', message: `the first bracket must start at 0 or 1, not ${qtyFrom}` },
    ]);
  });

  it.each([
    ['qtyFrom', { qtyFrom: '-1' }, 'QtyFrom must be a non-negative decimal number'],
    ['qtyFrom', { qtyFrom: '1e1' }, 'QtyFrom must be a non-negative decimal number'],
    ['qtyFrom', { qtyFrom: '' }, 'QtyFrom must be a non-negative decimal number'],
    ['qtyFrom', { qtyFrom: '10.5' }, 'QtyFrom must be a whole number of units'],
    ['qtyTill', { qtyTill: 'twenty' }, 'QtyTill must be a non-negative decimal number'],
    ['qtyTill', { qtyTill: '' }, 'QtyTill must be a non-negative decimal number'],
    ['qtyTill', { qtyTill: '19.5' }, 'QtyTill must be a whole number of units'],
    ['price', { price: '-0.8' }, 'Price must be a non-negative decimal number'],
    ['price', { price: '8e-1' }, 'Price must be a non-negative decimal number'],
    ['price', { price: '0.80001' }, 'Price must have at most 4 decimals'],
  ] as const)('names bracket 1 and its %s for %j', (field, change, message) => {
    const brackets = TIERED.map((bracket, index) => (index === 1 ? { ...bracket, ...change } : bracket));
    expect(validateBrackets(brackets)).toContainEqual({ index: 1, field, message });
  });

  it('requires each QtyTill to be at least its QtyFrom and at least 1', () => {
    expect(
      validateBrackets([
        { qtyFrom: '1', qtyTill: '10', price: '1' },
        { qtyFrom: '11', qtyTill: '10', price: '1' },
        { qtyFrom: '11', qtyTill: null, price: '1' },
      ]),
    ).toEqual([{ index: 1, field: 'qtyTill', message: 'QtyTill 10 is below QtyFrom 11' }]);
    expect(
      validateBrackets([
        { qtyFrom: '0', qtyTill: '0', price: '1' },
        { qtyFrom: '1', qtyTill: null, price: '1' },
      ]),
    ).toEqual([{ index: 0, field: 'qtyTill', message: 'QtyTill must be at least 1' }]);
  });

  it('finds a gap between brackets', () => {
    expect(
      validateBrackets([
        { qtyFrom: '1', qtyTill: '10', price: '1' },
        { qtyFrom: '13', qtyTill: null, price: '1' },
      ]),
    ).toEqual([
      { index: 1, field: 'qtyFrom', message: 'gap: units 11 to 12 are in no bracket; QtyFrom must be 11' },
    ]);
  });

  it('finds an overlap between brackets', () => {
    expect(
      validateBrackets([
        { qtyFrom: '1', qtyTill: '10', price: '1' },
        { qtyFrom: '10', qtyTill: null, price: '1' },
      ]),
    ).toEqual([
      { index: 1, field: 'qtyFrom', message: 'overlap: the previous bracket ends at 10; QtyFrom must be 11' },
    ]);
  });

  it('finds brackets out of ascending order', () => {
    expect(
      validateBrackets([
        { qtyFrom: '1', qtyTill: '10', price: '1' },
        { qtyFrom: '21', qtyTill: '30', price: '1' },
        { qtyFrom: '11', qtyTill: '20', price: '1' },
        { qtyFrom: '31', qtyTill: null, price: '1' },
      ]),
    ).toEqual([
      { index: 1, field: 'qtyFrom', message: 'gap: units 11 to 20 are in no bracket; QtyFrom must be 11' },
      {
        index: 2,
        field: 'qtyFrom',
        message: "brackets must ascend: QtyFrom 11 is below the previous bracket's QtyFrom 21",
      },
      { index: 3, field: 'qtyFrom', message: 'gap: units 21 to 30 are in no bracket; QtyFrom must be 21' },
    ]);
  });

  it('allows only the last bracket to be open, and requires it to be', () => {
    expect(
      validateBrackets([
        { qtyFrom: '1', qtyTill: null, price: '1' },
        { qtyFrom: '11', qtyTill: null, price: '1' },
      ]),
    ).toEqual([{ index: 0, field: 'qtyTill', message: 'only the last bracket may be open (QtyTill null)' }]);
    expect(validateBrackets(TIERED.slice(0, 2))).toEqual([
      {
        index: 1,
        field: 'qtyTill',
        message: 'the last bracket must be open (QtyTill null) so that every quantity has a price',
      },
    ]);
  });

  it('reports every problem, each with its bracket', () => {
    const problems = validateBrackets([
      { qtyFrom: '5', qtyTill: '10', price: '1.23456' },
      { qtyFrom: '12', qtyTill: '11.5', price: 'x' },
    ]);
    expect(problems.map(({ index, field }) => [index, field])).toEqual([
      [0, 'price'],
      [0, 'qtyFrom'],
      [1, 'qtyTill'],
      [1, 'qtyTill'],
      [1, 'price'],
      [1, 'qtyFrom'],
    ]);
  });
});

describe('pricing properties', () => {
  const priceArb = fc.bigInt({ min: 0n, max: 200_000n }); // 0 to 20.0000, in ten-thousandths

  /** 1–5 contiguous brackets with whole bounds, the last open, prices with up to 4 decimals. */
  const bracketsArb = fc
    .record({
      firstFrom: fc.constantFrom('0', '1'),
      widths: fc.array(fc.bigInt({ min: 1n, max: 40n }), { maxLength: 4 }),
      prices: fc.array(priceArb, { minLength: 5, maxLength: 5 }),
      padPrices: fc.boolean(),
    })
    .map(({ firstFrom, widths, prices, padPrices }) => {
      const price = (index: number) => fromScaled(prices[index]!, 4, padPrices);
      const brackets: Bracket[] = [];
      let qtyFrom: string = firstFrom;
      let qtyTill = 0n;
      widths.forEach((width, index) => {
        qtyTill += width;
        brackets.push({ qtyFrom, qtyTill: qtyTill.toString(), price: price(index) });
        qtyFrom = (qtyTill + 1n).toString();
      });
      brackets.push({ qtyFrom, qtyTill: null, price: price(widths.length) });
      return brackets;
    });

  /** Whole or fractional (up to 4 decimals) quantities, reaching past the start of the open bracket. */
  const quantityArb = (brackets: Bracket[]) => {
    const max = BigInt(brackets.at(-1)!.qtyFrom) + 30n;
    return fc.oneof(
      fc.bigInt({ min: 0n, max }).map((units) => units.toString()),
      fc.bigInt({ min: 0n, max: max * 10_000n }).map((scaled) => fromScaled(scaled, 4)),
    );
  };

  const withQuantity = bracketsArb.chain((brackets) =>
    fc.tuple(fc.constant(brackets), quantityArb(brackets)),
  );
  const withTwoQuantities = bracketsArb.chain((brackets) =>
    fc.tuple(fc.constant(brackets), quantityArb(brackets), quantityArb(brackets)),
  );

  /** The price of whole unit n (1, 2, ...) read straight from QtyFrom..QtyTill, in ten-thousandths. */
  function unitPrice(brackets: Bracket[], unit: bigint): bigint {
    const bracket = brackets.find(
      (b, index) =>
        (index === 0 ? 1n : BigInt(b.qtyFrom)) <= unit && (b.qtyTill === null || unit <= BigInt(b.qtyTill)),
    );
    if (!bracket) throw new Error(`no bracket for unit ${unit}`);
    return toScaled(bracket.price, 4);
  }

  /**
   * Reference unit (graduated) charge in 10^-8, walking unit by unit: units 1..floor(q) at their own price, and
   * the fraction of unit floor(q)+1 at that unit's price.
   */
  function referenceUnit(brackets: Bracket[], quantity: string): bigint {
    const scaled = toScaled(quantity, 4);
    const whole = scaled / 10_000n;
    const fraction = scaled % 10_000n;
    let total = 0n;
    for (let unit = 1n; unit <= whole; unit++) total += unitPrice(brackets, unit) * 10_000n;
    if (fraction > 0n) total += unitPrice(brackets, whole + 1n) * fraction;
    return total;
  }

  /** Reference volume charge in 10^-8: the whole quantity at the price of the unit it reaches into. */
  function referenceVolume(brackets: Bracket[], quantity: string): bigint {
    const scaled = toScaled(quantity, 4);
    if (scaled === 0n) return 0n;
    const reached = (scaled + 9_999n) / 10_000n;
    return unitPrice(brackets, reached) * scaled;
  }

  it('generates only valid bracket sets', () => {
    fc.assert(
      fc.property(bracketsArb, (brackets) => {
        expect(validateBrackets(brackets)).toEqual([]);
      }),
    );
  });

  it('charges unit exactly as the unit-by-unit reference does', () => {
    fc.assert(
      fc.property(withQuantity, ([brackets, quantity]) => {
        const charge = priceUsage('unit', brackets, quantity);
        expect(charge).toMatch(CANONICAL);
        expect(toScaled(charge, 8)).toBe(referenceUnit(brackets, quantity));
      }),
    );
  });

  it('charges volume exactly as the reference does', () => {
    fc.assert(
      fc.property(withQuantity, ([brackets, quantity]) => {
        const charge = priceUsage('volume', brackets, quantity);
        expect(charge).toMatch(CANONICAL);
        expect(toScaled(charge, 8)).toBe(referenceVolume(brackets, quantity));
      }),
    );
  });

  it('never lowers a unit charge as the quantity grows', () => {
    fc.assert(
      fc.property(withTwoQuantities, ([brackets, a, b]) => {
        const [low, high] = new Big(a).lte(b) ? [a, b] : [b, a];
        expect(new Big(priceUsage('unit', brackets, low)).lte(priceUsage('unit', brackets, high))).toBe(true);
      }),
    );
  });

  it('never lowers a volume charge as the quantity grows when prices do not fall from bracket to bracket', () => {
    const ascending = bracketsArb.map((brackets) => {
      const prices = brackets.map((b) => b.price).sort((x, y) => new Big(x).cmp(y));
      return brackets.map((b, index) => ({ ...b, price: prices[index]! }));
    });
    const cases = ascending.chain((brackets) =>
      fc.tuple(fc.constant(brackets), quantityArb(brackets), quantityArb(brackets)),
    );
    fc.assert(
      fc.property(cases, ([brackets, a, b]) => {
        const [low, high] = new Big(a).lte(b) ? [a, b] : [b, a];
        expect(new Big(priceUsage('volume', brackets, low)).lte(priceUsage('volume', brackets, high))).toBe(
          true,
        );
      }),
    );
  });

  it('agrees between unit and volume when there is one bracket, at quantity × price', () => {
    const single = fc.record({
      qtyFrom: fc.constantFrom('0', '1'),
      price: priceArb.map((p) => fromScaled(p, 4)),
      quantity: fc.bigInt({ min: 0n, max: 10n ** 12n }),
    });
    fc.assert(
      fc.property(single, ({ qtyFrom, price, quantity }) => {
        const brackets: Bracket[] = [{ qtyFrom, qtyTill: null, price }];
        const text = fromScaled(quantity, 4);
        const expected = fromScaled(quantity * toScaled(price, 4), 8);
        expect(priceUsage('unit', brackets, text)).toBe(expected);
        expect(priceUsage('volume', brackets, text)).toBe(expected);
      }),
    );
  });

  it('names the bracket whose QtyFrom is moved off the previous QtyTill + 1', () => {
    const moved = bracketsArb
      .filter((brackets) => brackets.length >= 2)
      .chain((brackets) =>
        fc.tuple(
          fc.constant(brackets),
          fc.integer({ min: 1, max: brackets.length - 1 }),
          fc.bigInt({ min: -3n, max: 3n }).filter((delta) => delta !== 0n),
        ),
      );
    fc.assert(
      fc.property(moved, ([brackets, index, delta]) => {
        const qtyFrom = (BigInt(brackets[index]!.qtyFrom) + delta).toString();
        const broken = brackets.map((b, i) => (i === index ? { ...b, qtyFrom } : b));
        const problems = validateBrackets(broken);
        expect(problems.some((p) => p.index === index && p.field === 'qtyFrom')).toBe(true);
        expect(() => priceUsage('unit', broken, '1')).toThrow(RangeError);
      }),
    );
  });
});
