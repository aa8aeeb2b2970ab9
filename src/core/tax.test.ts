import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTaxPerc, ruleSpecificity, taxesFor, taxesForSupplies } from './tax.ts';
import type { ResolvableTaxRule, ResolvableTaxSetting, TaxedCustomer } from './tax.ts';

const ZA = 710;
const US = 840;
const ZA_WC = 71001234;
const ZA_GP = 71000655;
const US_CA = 84000492;

const global = (perc: string): ResolvableTaxRule => ({ perc, countryId: null, countryStateId: null });
const country = (countryId: number, perc: string): ResolvableTaxRule => ({
  perc,
  countryId,
  countryStateId: null,
});
const state = (countryId: number, countryStateId: number, perc: string): ResolvableTaxRule => ({
  perc,
  countryId,
  countryStateId,
});
const customer = (
  countryId: number | null,
  countryStateId: number | null = null,
  isWaiveTaxes = false,
): TaxedCustomer => ({ countryId, countryStateId, isWaiveTaxes });

// The example of tax.ts: VAT with rules {global 0.2, ZA 0.15, ZA-WC 0.1}.
const VAT: ResolvableTaxSetting = {
  name: 'VAT',
  rules: [global('0.2'), country(ZA, '0.15'), state(ZA, ZA_WC, '0.1')],
};

describe('taxesFor', () => {
  it('applies the most specific matching rule: state, then country, then global', () => {
    expect(taxesFor([VAT], customer(ZA, ZA_WC))).toEqual([{ name: 'VAT', perc: '0.1' }]);
    expect(taxesFor([VAT], customer(ZA, ZA_GP))).toEqual([{ name: 'VAT', perc: '0.15' }]);
    expect(taxesFor([VAT], customer(ZA))).toEqual([{ name: 'VAT', perc: '0.15' }]);
    expect(taxesFor([VAT], customer(US, US_CA))).toEqual([{ name: 'VAT', perc: '0.2' }]);
    expect(taxesFor([VAT], customer(null))).toEqual([{ name: 'VAT', perc: '0.2' }]);
  });

  it('does not depend on the order of the rules', () => {
    const reversed = { ...VAT, rules: [...VAT.rules].reverse() };
    expect(taxesFor([reversed], customer(ZA, ZA_WC))).toEqual([{ name: 'VAT', perc: '0.1' }]);
    expect(taxesFor([reversed], customer(ZA))).toEqual([{ name: 'VAT', perc: '0.15' }]);
  });

  it('applies nothing for a setting without a matching rule', () => {
    const salesTax = { name: 'CA sales tax', rules: [state(US, US_CA, '0.0725')] };
    expect(taxesFor([salesTax], customer(US))).toEqual([]);
    expect(taxesFor([salesTax], customer(ZA, ZA_WC))).toEqual([]);
    expect(taxesFor([{ name: 'Empty', rules: [] }], customer(ZA))).toEqual([]);
    expect(taxesFor([salesTax, VAT], customer(US, US_CA))).toEqual([
      { name: 'CA sales tax', perc: '0.0725' },
      { name: 'VAT', perc: '0.2' },
    ]);
  });

  it('applies a zero-rated rule as a tax of 0, overriding a wider rule', () => {
    const vat = { name: 'VAT', rules: [country(ZA, '0.15'), state(ZA, ZA_WC, '0')] };
    expect(taxesFor([vat], customer(ZA, ZA_WC))).toEqual([{ name: 'VAT', perc: '0' }]);
  });

  it('a state rule needs the state and its country to match', () => {
    expect(ruleSpecificity(state(ZA, ZA_WC, '0.1'), customer(null, ZA_WC))).toBeUndefined();
    expect(ruleSpecificity(state(ZA, ZA_WC, '0.1'), customer(ZA, ZA_WC))).toBe(2);
    expect(ruleSpecificity(country(ZA, '0.1'), customer(ZA, ZA_WC))).toBe(1);
    expect(ruleSpecificity(global('0.1'), customer(null))).toBe(0);
  });

  it('gives a customer who waives taxes none', () => {
    expect(taxesFor([VAT], customer(ZA, ZA_WC, true))).toEqual([]);
  });

  it('takes the first of two rules of one scope (the service refuses such lists)', () => {
    const twice = { name: 'VAT', rules: [country(ZA, '0.15'), country(ZA, '0.14')] };
    expect(taxesFor([twice], customer(ZA))).toEqual([{ name: 'VAT', perc: '0.15' }]);
  });
});

describe('taxesFor properties', () => {
  const countries = [ZA, US, 826];
  const statesOf: Record<number, number[]> = { [ZA]: [ZA_WC, ZA_GP], [US]: [US_CA, 84000923], 826: [] };
  const place = fc
    .constantFrom(...countries)
    .chain((c) =>
      fc.record({ countryId: fc.constant(c), countryStateId: fc.constantFrom(null, ...statesOf[c]!) }),
    );
  const percArb = fc.integer({ min: 0, max: 1_000_000 }).map((n) => String(n / 1_000_000));
  const ruleArb: fc.Arbitrary<ResolvableTaxRule> = fc.oneof(
    percArb.map(global),
    fc.record({ perc: percArb, countryId: fc.constantFrom(...countries), countryStateId: fc.constant(null) }),
    fc.tuple(place, percArb).map(([p, perc]) => ({ ...p, perc })),
  );
  const settingsArb = fc.array(
    fc.record({
      name: fc.string({ minLength: 1, maxLength: 8 }),
      rules: fc.array(ruleArb, { maxLength: 8 }),
    }),
    { maxLength: 5 },
  );
  const customerArb = fc.oneof(
    fc.record({
      countryId: fc.constant(null),
      countryStateId: fc.constant(null),
      isWaiveTaxes: fc.boolean(),
    }),
    fc.tuple(place, fc.boolean()).map(([p, isWaiveTaxes]) => ({ ...p, isWaiveTaxes })),
  );

  it('never gives more than one tax per setting, in the settings order', () => {
    fc.assert(
      fc.property(settingsArb, customerArb, (settings, who) => {
        const taxes = taxesFor(settings, who);
        expect(taxes.length).toBeLessThanOrEqual(settings.length);
        let from = 0;
        for (const tax of taxes) {
          const at = settings.findIndex((s, i) => i >= from && s.name === tax.name);
          expect(at).toBeGreaterThanOrEqual(from);
          from = at + 1;
        }
      }),
    );
  });

  it('gives a waived customer nothing', () => {
    fc.assert(
      fc.property(settingsArb, customerArb, (settings, who) => {
        expect(taxesFor(settings, { ...who, isWaiveTaxes: true })).toEqual([]);
      }),
    );
  });

  it('applies the perc of a matching rule, and of none more specific', () => {
    fc.assert(
      fc.property(settingsArb, customerArb, (settings, who) => {
        fc.pre(!who.isWaiveTaxes);
        for (const setting of settings) {
          const [tax] = taxesFor([setting], who);
          const matching = setting.rules
            .map((rule) => ({ rule, level: ruleSpecificity(rule, who) }))
            .filter((m): m is { rule: ResolvableTaxRule; level: number } => m.level !== undefined);
          if (matching.length === 0) {
            expect(tax).toBeUndefined();
            continue;
          }
          const top = Math.max(...matching.map((m) => m.level));
          expect(tax).toEqual({ name: setting.name, perc: matching.find((m) => m.level === top)!.rule.perc });
        }
      }),
    );
  });

  it('lets a more specific rule override, whatever the wider rules say', () => {
    fc.assert(
      fc.property(settingsArb, place, percArb, (settings, where, perc) => {
        fc.pre(where.countryStateId !== null);
        const who = { ...where, isWaiveTaxes: false };
        const withState = settings.map((s) => ({
          ...s,
          rules: [...s.rules.filter((r) => r.countryStateId === null), { ...where, perc }],
        }));
        expect(taxesFor(withState, who).every((tax) => tax.perc === perc)).toBe(true);
        expect(taxesFor(withState, who)).toHaveLength(settings.length);
      }),
    );
  });
});

describe('parseTaxPerc', () => {
  it.each([
    [0.14, '0.14'],
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [0.000001, '0.000001'],
    [0.123456, '0.123456'],
  ])('reads %d exactly as %s', (value, expected) => {
    expect(parseTaxPerc(value)).toEqual({ perc: expected });
  });

  it('refuses percentages, saying so', () => {
    expect(parseTaxPerc(14)).toEqual({
      message: 'must be a fraction between 0 and 1, not a percentage: 14% is 0.14',
    });
    expect(parseTaxPerc(1.5)).toHaveProperty('message', expect.stringContaining('not a percentage'));
  });

  it.each([[-0.1], [101], [0.0000001], [0.1234567], [0.1 + 0.2 - 0.3 + 0.15], [Number.NaN], [Infinity]])(
    'refuses %d',
    (value) => {
      expect(parseTaxPerc(value)).toHaveProperty('message');
    },
  );

  it('round-trips every fraction of at most 6 decimals through its JSON number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (millionths) => {
        const text = (millionths / 1_000_000).toFixed(6).replace(/\.?0+$/, '') || '0';
        const parsed = parseTaxPerc(JSON.parse(text) as number);
        expect(parsed).toEqual({ perc: text });
        expect(Number((parsed as { perc: string }).perc)).toBe(JSON.parse(text));
      }),
    );
  });
});

describe('taxesForSupplies (rates that change on a date)', () => {
  // 15 % in South Africa, 15.5 % from 1 May 2025.
  const DATED: ResolvableTaxSetting = {
    name: 'VAT',
    rules: [
      {
        ...country(ZA, '0.15'),
        timeline: { openingPerc: '0.15', rates: [{ perc: '0.155', effectiveFrom: '2025-05-01' }] },
      },
    ],
  };
  const inZa = customer(ZA);
  const april = { start: '2025-04-01', end: '2025-05-01' };
  const may = { start: '2025-05-01', end: '2025-06-01' };

  it('taxes a period ending before the change at the old rate, even on an invoice dated after it', () => {
    expect(taxesForSupplies([DATED], inZa, [april], '2025-05-01')).toEqual([{ name: 'VAT', perc: '0.15' }]);
  });

  it('taxes a period from the change at the new rate, even on an invoice dated before it', () => {
    expect(taxesForSupplies([DATED], inZa, [may], '2025-04-28')).toEqual([{ name: 'VAT', perc: '0.155' }]);
  });

  it('lets lines without a period follow the others, and a one-off invoice take its own date', () => {
    const setupFee = { start: null, end: null };
    expect(taxesForSupplies([DATED], inZa, [setupFee, may], '2025-04-28')).toEqual([
      { name: 'VAT', perc: '0.155' },
    ]);
    expect(taxesForSupplies([DATED], inZa, [setupFee], '2025-04-28')).toEqual([
      { name: 'VAT', perc: '0.15' },
    ]);
  });

  it('falls back to the invoice date when the rates differ within the invoice (not split yet)', () => {
    const quarter = { start: '2025-04-01', end: '2025-07-01' };
    expect(taxesForSupplies([DATED], inZa, [quarter], '2025-04-01')).toEqual([{ name: 'VAT', perc: '0.15' }]);
    expect(taxesForSupplies([DATED], inZa, [april, may], '2025-05-01')).toEqual([
      { name: 'VAT', perc: '0.155' },
    ]);
  });

  it('sees a rate that comes and goes inside a period, and keeps a waived customer untaxed', () => {
    const brief: ResolvableTaxSetting = {
      name: 'VAT',
      rules: [
        {
          ...global('0.15'),
          timeline: {
            openingPerc: '0.15',
            rates: [
              { perc: '0.16', effectiveFrom: '2025-04-10' },
              { perc: '0.15', effectiveFrom: '2025-04-20' },
            ],
          },
        },
      ],
    };
    // 15 % on both ends of April but 16 % inside it: the rates differ, so the invoice date's (16 %) is taken.
    expect(taxesForSupplies([brief], inZa, [april], '2025-04-12')).toEqual([{ name: 'VAT', perc: '0.16' }]);
    expect(
      taxesForSupplies([brief], inZa, [{ start: '2025-04-12', end: '2025-04-15' }], '2025-04-12'),
    ).toEqual([{ name: 'VAT', perc: '0.16' }]);
    expect(taxesForSupplies([DATED], customer(ZA, null, true), [may], '2025-05-01')).toEqual([]);
  });
});
