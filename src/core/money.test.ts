import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_AMOUNT,
  decimalToMinor,
  fractionOfMinor,
  minorToDecimalText,
  minorToWireNumber,
  minorUnitDigits,
  productToMinor,
  ratioOfMinor,
  wireAmountToMinor,
} from './money.ts';

// A reference for the one rounding rule: big.js rounds half away from zero with roundHalfUp.
const Exact = Big();
Exact.strict = true;
Exact.NE = -1e6;
Exact.PE = 1e6;
const HALF_AWAY = 1; // Big.roundHalfUp

function referenceMinor(exact: Big, digits: number): number {
  return Number(exact.times(new Exact('10').pow(digits)).round(0, HALF_AWAY).toString());
}

/** A plain decimal string (optionally negative) with up to `decimals` decimals, from an integer of units. */
function decimalText(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const text = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = decimals === 0 ? text : text.slice(0, -decimals);
  const fraction = decimals === 0 ? '' : `.${text.slice(-decimals)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

const CURRENCIES = ['USD', 'JPY', 'BHD'] as const;

describe('minorUnitDigits', () => {
  it.each([
    ['USD', 2],
    ['ZAR', 2],
    ['JPY', 0],
    ['BHD', 3],
    ['usd', 2],
  ])('gives %s the ISO 4217 exponent %i', (code, digits) => {
    expect(minorUnitDigits(code)).toBe(digits);
  });

  it('refuses an unknown currency', () => {
    expect(() => minorUnitDigits('XXX')).toThrow(RangeError);
    expect(() => decimalToMinor('1', 'ABC')).toThrow(RangeError);
  });
});

describe('decimalToMinor', () => {
  it.each([
    // USD, 2 digits: the value × 100, rounded half away from zero
    ['0', 'USD', 0],
    ['12', 'USD', 1200], // 12 × 100
    ['12.3', 'USD', 1230], // 12.3 × 100
    ['2.345', 'USD', 235], // 234.5 → 235 (half away from zero, not to even)
    ['2.365', 'USD', 237], // 236.5 → 237 (rounding half to even would give 236)
    ['-2.345', 'USD', -235], // -234.5 → -235
    ['2.344', 'USD', 234], // 234.4 → 234
    ['-2.344', 'USD', -234], // -234.4 → -234
    ['2.3449999', 'USD', 234], // 234.49999 → 234 (no double rounding through 2.345)
    ['1.999', 'USD', 200], // 199.9 → 200
    ['0.005', 'USD', 1], // 0.5 → 1
    ['-0.005', 'USD', -1], // -0.5 → -1
    ['0.00499', 'USD', 0], // 0.499 → 0
    ['-0.00499', 'USD', 0], // -0.499 → 0
    ['0.015', 'USD', 2], // 1.5 → 2 (a binary double holds 0.015 as 0.01499…)
    ['1.005', 'USD', 101], // 100.5 → 101 (a binary double holds 1.005 as 1.00499…)
    ['90071992547409.91', 'USD', 9007199254740991], // the largest safe integer of cents
    // JPY, 0 digits: the value itself, rounded
    ['1234', 'JPY', 1234],
    ['1234.5', 'JPY', 1235], // 1234.5 → 1235
    ['-1234.5', 'JPY', -1235], // -1234.5 → -1235
    ['99.5', 'JPY', 100], // 99.5 → 100
    ['0.49', 'JPY', 0], // 0.49 → 0
    ['-0.5', 'JPY', -1], // -0.5 → -1
    ['2.5', 'JPY', 3], // 2.5 → 3 (not to even)
    // BHD, 3 digits: the value × 1000, rounded
    ['12.345', 'BHD', 12345], // exact
    ['1.0005', 'BHD', 1001], // 1000.5 → 1001
    ['-1.0005', 'BHD', -1001], // -1000.5 → -1001
    ['1.0004', 'BHD', 1000], // 1000.4 → 1000
    ['0.0125', 'BHD', 13], // 12.5 → 13
    ['0.0005', 'BHD', 1], // 0.5 → 1
  ])('rounds %s %s to %i minor units', (amount, currency, expected) => {
    expect(decimalToMinor(amount, currency)).toBe(expected);
  });

  it.each(['', '1e3', '.5', '5.', '+5', ' 1', '1,5', 'NaN', '--1', '0x10'])('refuses %j', (amount) => {
    expect(() => decimalToMinor(amount, 'USD')).toThrow(RangeError);
  });

  it('refuses an amount beyond the safe integer range', () => {
    // 90071992547409.92 × 100 = 2^53, one past Number.MAX_SAFE_INTEGER
    expect(() => decimalToMinor('90071992547409.92', 'USD')).toThrow(RangeError);
  });

  it('rounds any exact decimal as big.js does half away from zero', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom(...CURRENCIES),
        (units, decimals, currency) => {
          const text = decimalText(units, decimals);
          const digits = minorUnitDigits(currency);
          expect(decimalToMinor(text, currency)).toBe(referenceMinor(new Exact(text), digits));
        },
      ),
    );
  });

  it('is symmetric around zero and never off by more than half a minor unit', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom(...CURRENCIES),
        (units, decimals, currency) => {
          const text = decimalText(units, decimals);
          const rounded = decimalToMinor(text, currency);
          expect(decimalToMinor(decimalText(-units, decimals), currency)).toBe(rounded === 0 ? 0 : -rounded);
          const scaled = new Exact(text).times(new Exact('10').pow(minorUnitDigits(currency)));
          expect(scaled.minus(String(rounded)).abs().lte('0.5')).toBe(true);
        },
      ),
    );
  });
});

describe('productToMinor', () => {
  it.each([
    // a × b exactly, then × 10^digits, rounded once
    ['3', '3.333', 'USD', 1000], // 9.999 → 999.9 cents → 1000
    ['-3', '3.333', 'USD', -1000], // -9.999 → -999.9 → -1000
    ['3', '-3.333', 'USD', -1000], // same sign rule on either factor
    ['-3', '-3.333', 'USD', 1000], // two negatives
    ['0.3333', '3', 'USD', 100], // 0.9999 → 99.99 → 100
    ['5', '0.001', 'USD', 1], // 0.005 → 0.5 → 1
    ['-5', '0.001', 'USD', -1], // -0.005 → -0.5 → -1
    ['2.5', '0.001', 'USD', 0], // 0.0025 → 0.25 → 0
    ['0.123456789', '8.1', 'USD', 100], // 0.9999999909 → 99.99999909 → 100
    ['1.23456789', '0.45', 'USD', 56], // 0.5555555505 → 55.55555505 → 56
    ['12345678.9', '12345.6789', 'USD', 15241578750191], // 152415787501.90521 → …0190.521 → …0191
    ['12345678.9', '12345.6789', 'JPY', 152415787502], // 152415787501.90521 → …502
    ['12345678.9', '12345.6789', 'BHD', 152415787501905], // → …501905.21 → …501905
    ['3', '333.5', 'JPY', 1001], // 1000.5 → 1001
    ['-3', '333.5', 'JPY', -1001], // -1000.5 → -1001
    ['7', '0.0714', 'JPY', 0], // 0.4998 → 0
    ['3', '0.3335', 'BHD', 1001], // 1.0005 → 1000.5 fils → 1001
    ['1000000', '0.0001', 'BHD', 100000], // 100 → 100000 fils
    ['0', '99999999999.9999', 'USD', 0], // 0 × anything
    ['1', '99999999999.9999', 'USD', 10000000000000], // 9999999999999.99 → 10000000000000
  ])('prices %s × %s %s as %i minor units', (a, b, currency, expected) => {
    expect(productToMinor(a, b, currency)).toBe(expected);
  });

  it('refuses a factor that is not a plain decimal', () => {
    expect(() => productToMinor('1e2', '1', 'USD')).toThrow(RangeError);
    expect(() => productToMinor('1', '0.1 ', 'USD')).toThrow(RangeError);
  });

  it('rounds the exact product once, as big.js does half away from zero', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 6n), max: 10n ** 6n }),
        fc.integer({ min: 0, max: 6 }),
        fc.bigInt({ min: -(10n ** 6n), max: 10n ** 6n }),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom(...CURRENCIES),
        (aUnits, aDecimals, bUnits, bDecimals, currency) => {
          const a = decimalText(aUnits, aDecimals);
          const b = decimalText(bUnits, bDecimals);
          const expected = referenceMinor(new Exact(a).times(new Exact(b)), minorUnitDigits(currency));
          expect(productToMinor(a, b, currency)).toBe(expected);
          expect(productToMinor(b, a, currency)).toBe(expected);
        },
      ),
    );
  });
});

describe('fractionOfMinor', () => {
  it.each([
    // amount × fraction, rounded to a whole minor unit
    [1000, '0.15', 150], // 150
    [0, '0.15', 0],
    [10, '0.15', 2], // 1.5 → 2
    [-10, '0.15', -2], // -1.5 → -2
    [5, '0.15', 1], // 0.75 → 1
    [3, '0.15', 0], // 0.45 → 0
    [-3, '0.15', 0], // -0.45 → 0
    [999, '0.125', 125], // 124.875 → 125
    [1, '0.5', 1], // 0.5 → 1
    [-1, '0.5', -1], // -0.5 → -1
    [12345, '0.0825', 1018], // 1018.4625 → 1018
    [1001, '1', 1001], // a fraction of 1 is the amount
    [1001, '0', 0],
  ])('takes %i × %s as %i', (amount, fraction, expected) => {
    expect(fractionOfMinor(amount, fraction)).toBe(expected);
  });

  it('refuses an amount that is not an integer', () => {
    expect(() => fractionOfMinor(1.5, '0.15')).toThrow(RangeError);
  });
});

describe('ratioOfMinor', () => {
  it.each([
    // amount × numerator / denominator, rounded to a whole minor unit
    [3000, 10, 31, 968], // 30.00 × 10/31 = 967.74… → 968 (9.68)
    [3000, 17, 31, 1645], // 1645.16… → 1645
    [3000, 31, 31, 3000], // the whole
    [3000, 0, 31, 0], // none of it
    [2800, 14, 28, 1400], // exactly half
    [100, 1, 3, 33], // 33.33… → 33
    [200, 1, 3, 67], // 66.66… → 67
    [1, 1, 2, 1], // 0.5 → 1
    [-1, 1, 2, -1], // -0.5 → -1
    [5, 1, 10, 1], // 0.5 → 1
    [4, 1, 10, 0], // 0.4 → 0
    [-3000, 10, 31, -968], // -967.74… → -968
    [3000, 38, 28, 4071], // 4071.42… → 4071: more than the whole is allowed
  ])('takes %i × %i / %i as %i', (amount, numerator, denominator, expected) => {
    expect(ratioOfMinor(amount, numerator, denominator)).toBe(expected);
  });

  it.each([
    [10, 0],
    [10, -31],
    [1.5, 31],
    [10, 2.5],
  ])('refuses the ratio %d / %d', (numerator, denominator) => {
    expect(() => ratioOfMinor(3000, numerator, denominator)).toThrow(RangeError);
  });

  it('stays within half a minor unit of the exact part and is symmetric around zero', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 400 }),
        (amount, denominator, numerator) => {
          const part = ratioOfMinor(amount, numerator, denominator);
          const exact = new Exact(String(amount)).times(String(numerator)).div(String(denominator));
          expect(exact.minus(String(part)).abs().lte('0.5')).toBe(true);
          expect(ratioOfMinor(-amount, numerator, denominator)).toBe(part === 0 ? 0 : -part);
        },
      ),
    );
  });
});

describe('minorToDecimalText', () => {
  it.each([
    [1230, 'USD', '12.30'],
    [5, 'USD', '0.05'],
    [-5, 'USD', '-0.05'],
    [0, 'USD', '0.00'],
    [-0, 'USD', '0.00'],
    [-123456, 'USD', '-1234.56'],
    [9007199254740991, 'USD', '90071992547409.91'],
    [1234, 'JPY', '1234'],
    [-7, 'JPY', '-7'],
    [0, 'JPY', '0'],
    [5, 'BHD', '0.005'],
    [12345, 'BHD', '12.345'],
    [-1001, 'BHD', '-1.001'],
  ])('writes %i %s as %s', (amount, currency, expected) => {
    expect(minorToDecimalText(amount, currency)).toBe(expected);
  });

  it.each([1.5, Number.NaN, Infinity, 1e21])('refuses %d, which is not a safe integer', (amount) => {
    expect(() => minorToDecimalText(amount, 'USD')).toThrow(RangeError);
  });

  it('reads back to the same amount, and to the same number as the wire shows', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.constantFrom(...CURRENCIES), (amount, currency) => {
        const text = minorToDecimalText(amount, currency);
        expect(decimalToMinor(text, currency)).toBe(amount);
        if (Math.abs(amount) < 1e15) expect(Number(text)).toBe(minorToWireNumber(amount, currency));
      }),
    );
  });
});

describe('wireAmountToMinor', () => {
  it.each([
    // value, currency, minor units: the decimal × 10^digits, exactly
    ['10.50', 'USD', 1050],
    [10.5, 'USD', 1050],
    ['10', 'USD', 1000],
    [10, 'USD', 1000],
    ['0.01', 'USD', 1],
    [0.01, 'USD', 1],
    [0.1, 'USD', 10], // String(0.1) is "0.1": the decimal the client wrote, not the binary double
    ['10.500', 'USD', 1050], // trailing zeros are not decimals that matter
    [' 10.50 ', 'USD', 1050], // surrounding spaces of a string are dropped
    ['1500', 'JPY', 1500],
    [1500, 'JPY', 1500],
    ['1500.0', 'JPY', 1500],
    ['1.234', 'BHD', 1234],
    [1.234, 'BHD', 1234],
    ['0.001', 'BHD', 1],
    [MAX_AMOUNT, 'USD', 9_999_999_999_999], // 99999999999.99 × 100
    [99999999999.99, 'USD', 9_999_999_999_999],
    ['99999999999', 'JPY', 99_999_999_999],
    ['99999999999.990', 'BHD', 99_999_999_999_990],
  ])('reads %j %s as %i minor units', (value, currency, minor) => {
    expect(wireAmountToMinor(value, currency)).toEqual({ minor });
  });

  it.each([
    ['0', 'USD', 'must be greater than 0'],
    [0, 'USD', 'must be greater than 0'],
    ['0.00', 'USD', 'must be greater than 0'],
    [-0, 'USD', 'must be greater than 0'],
    ['-5', 'USD', 'must be greater than 0'],
    [-5, 'USD', 'must be greater than 0'],
    ['-0.01', 'USD', 'must be greater than 0'],
    ['10.505', 'USD', 'must have at most 2 decimals in USD'],
    [10.505, 'USD', 'must have at most 2 decimals in USD'],
    [0.1 + 0.2, 'USD', 'must have at most 2 decimals in USD'], // 0.30000000000000004
    ['1500.5', 'JPY', 'must have at most 0 decimals in JPY'],
    [1500.5, 'JPY', 'must have at most 0 decimals in JPY'],
    ['1.2345', 'BHD', 'must have at most 3 decimals in BHD'],
    ['1e3', 'USD', 'must be a decimal number (e.g. 12.50)'],
    ['1E3', 'USD', 'must be a decimal number (e.g. 12.50)'],
    [1e21, 'USD', 'must be a decimal number (e.g. 12.50)'], // String(1e21) is "1e+21"
    [1e-7, 'USD', 'must be a decimal number (e.g. 12.50)'], // String(1e-7) is "1e-7"
    ['', 'USD', 'must be a decimal number (e.g. 12.50)'],
    ['abc', 'USD', 'must be a decimal number (e.g. 12.50)'],
    ['1,000.00', 'USD', 'must be a decimal number (e.g. 12.50)'],
    ['.5', 'USD', 'must be a decimal number (e.g. 12.50)'],
    ['5.', 'USD', 'must be a decimal number (e.g. 12.50)'],
    ['+5', 'USD', 'must be a decimal number (e.g. 12.50)'],
    ['0x10', 'USD', 'must be a decimal number (e.g. 12.50)'],
    [Number.NaN, 'USD', 'must be a finite number'],
    [Infinity, 'USD', 'must be a finite number'],
    ['100000000000', 'USD', `must be at most ${MAX_AMOUNT}`],
    ['99999999999.991', 'BHD', `must be at most ${MAX_AMOUNT}`],
    ['100000000000', 'JPY', `must be at most ${MAX_AMOUNT}`],
    [1e20, 'USD', `must be at most ${MAX_AMOUNT}`],
  ])('refuses %j %s: %s', (value, currency, message) => {
    expect(wireAmountToMinor(value, currency)).toEqual({ message });
  });

  it('refuses just above the bound and accepts the bound itself', () => {
    expect(wireAmountToMinor('99999999999.99', 'USD')).toEqual({ minor: 9_999_999_999_999 });
    expect(wireAmountToMinor('100000000000.00', 'USD')).toEqual({ message: `must be at most ${MAX_AMOUNT}` });
    expect(wireAmountToMinor('99999999999.999', 'BHD')).toEqual({ message: `must be at most ${MAX_AMOUNT}` });
  });

  it('reads any amount the currency can hold back from its decimal text, as a string and as a number', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.integer({ min: 1, max: 9_999_999_999_999 }),
        (currency, minor) => {
          const text = minorToDecimalText(minor, currency);
          if (Number(text) > Number(MAX_AMOUNT)) return;
          expect(wireAmountToMinor(text, currency)).toEqual({ minor });
          expect(wireAmountToMinor(Number(text), currency)).toEqual({ minor });
        },
      ),
    );
  });
});
