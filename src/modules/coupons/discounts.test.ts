import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { discountLines, percentFraction, spread } from './discounts.ts';
import type { CouponToApply } from './discounts.ts';

const percent = (percentOff: string, eligible: boolean[]): CouponToApply => ({
  discount: { kind: 'percent', percentOff },
  eligible,
});
const fixed = (amountOffMinor: number, eligible: boolean[]): CouponToApply => ({
  discount: { kind: 'fixed', amountOffMinor, currencyCode: 'USD' },
  eligible,
});
const lines = (...amounts: number[]) => amounts.map((amountMinor) => ({ amountMinor }));

describe('discountLines', () => {
  it('takes a percentage from each eligible line, rounded half away from zero per line', () => {
    // 25 % of 10.01 = 2.5025 → 2.50; of 0.10 = 0.025 → 0.03; the third line is not eligible.
    const [result] = discountLines(lines(1001, 10, 5000), [percent('25', [true, true, false])]);
    expect(result).toEqual({ perLineMinor: [250, 3, 0], totalMinor: 253 });
  });

  it('spreads a fixed amount in proportion to the lines, the cents left to the largest remainders', () => {
    // 10.00 over three lines of 10.00: 3.333… each → 3.33 × 3 = 9.99, one cent to the first.
    expect(
      discountLines(lines(1000, 1000, 1000), [fixed(1000, [true, true, true])])[0]!.perLineMinor,
    ).toEqual([334, 333, 333]);
    // 25.00 over 60.00 and 40.00: exactly 15.00 and 10.00.
    expect(discountLines(lines(6000, 4000), [fixed(2500, [true, true])])[0]!.perLineMinor).toEqual([
      1500, 1000,
    ]);
  });

  it('never takes more than the eligible lines: a fixed amount larger than the invoice stops at zero', () => {
    const [result] = discountLines(lines(3000, 2000), [fixed(8000, [true, false])]);
    expect(result).toEqual({ perLineMinor: [3000, 0], totalMinor: 3000 });
  });

  it('applies a 100 % coupon to the whole line', () => {
    expect(discountLines(lines(4999), [percent('100', [true])])[0]!.totalMinor).toBe(4999);
  });

  it('applies a second coupon to what the first left', () => {
    // 50 % of 100.00 = 50.00; then a fixed 80.00 finds only 50.00 left.
    const [first, second] = discountLines(lines(10000), [percent('50', [true]), fixed(8000, [true])]);
    expect(first!.totalMinor).toBe(5000);
    expect(second!.totalMinor).toBe(5000);
  });

  it('prorates a fixed amount with the period fraction', () => {
    // 10.00 × 10 / 31 = 3.2258… → 3.23.
    const [result] = discountLines(lines(968), [fixed(1000, [true])], { numerator: 10, denominator: 31 });
    expect(result!.totalMinor).toBe(323);
  });

  it('leaves lines below zero alone and never takes the invoice below zero', () => {
    // 100.00 and a correction of −80.00: a 100 % coupon takes 20.00, what is left of the invoice.
    const [result] = discountLines(lines(10000, -8000), [percent('100', [true, true])]);
    expect(result).toEqual({ perLineMinor: [2000, 0], totalMinor: 2000 });
  });

  it('takes the whole discount of a period whose progressive invoices billed most of it', () => {
    // Usage 100.00 of which progressive invoices billed 80.00: a fixed 50.00 takes 50.00 of the usage line, not
    // the 20.00 left after the deduction; the deduction itself is not discounted.
    const [result] = discountLines(
      [{ amountMinor: 10000 }, { amountMinor: -8000, isDeduction: true }],
      [fixed(5000, [true, true])],
    );
    expect(result).toEqual({ perLineMinor: [5000, 0], totalMinor: 5000 });
  });

  it('keeps every line and the invoice at zero or above, whatever the lines and coupons', () => {
    const coupon = fc.oneof(
      fc.record({ kind: fc.constant('percent' as const), p: fc.integer({ min: 1, max: 10000 }) }),
      fc.record({ kind: fc.constant('fixed' as const), a: fc.integer({ min: 1, max: 10_000_000 }) }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -100_000, max: 1_000_000 }), { minLength: 1, maxLength: 8 }),
        fc.array(coupon, { minLength: 1, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        (amounts, coupons, eligible) => {
          const results = discountLines(
            lines(...amounts),
            coupons.map((c) =>
              c.kind === 'percent' ? percent((c.p / 100).toFixed(2), eligible) : fixed(c.a, eligible),
            ),
          );
          const left = amounts.map(
            (amount, i) => amount - results.reduce((s, r) => s + r.perLineMinor[i]!, 0),
          );
          left.forEach((amount, i) => {
            if (amounts[i]! > 0) expect(amount).toBeGreaterThanOrEqual(0);
            else expect(amount).toBe(amounts[i]);
          });
          const total = amounts.reduce((a, b) => a + b, 0);
          const discounted = left.reduce((a, b) => a + b, 0);
          expect(discounted).toBeGreaterThanOrEqual(Math.min(0, total));
          for (const result of results) {
            expect(result.totalMinor).toBe(result.perLineMinor.reduce((a, b) => a + b, 0));
          }
        },
      ),
    );
  });
});

describe('spread', () => {
  it('adds up to the amount and gives no share beyond its weight', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 10 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (weights, f) => {
          const total = weights.reduce((a, b) => a + b, 0);
          const amount = Math.floor(total * f);
          const shares = spread(amount, weights);
          expect(shares.reduce((a, b) => a + b, 0)).toBe(total === 0 ? 0 : amount);
          shares.forEach((share, i) => expect(share).toBeLessThanOrEqual(weights[i]!));
        },
      ),
    );
  });
});

describe('percentFraction', () => {
  it('is exact', () => {
    expect(percentFraction('12.5')).toBe('0.125');
    expect(percentFraction('100')).toBe('1');
  });
});
