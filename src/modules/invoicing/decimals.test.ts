import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseWireDecimal } from './decimals.ts';

const unit = { positive: false };
const qty = { positive: true };

describe('parseWireDecimal', () => {
  it.each([
    [3.333, unit, '3.333'],
    [0.1, unit, '0.1'],
    [1.1, unit, '1.1'],
    ['1.10', unit, '1.1'],
    [' 12.5 ', unit, '12.5'],
    [-5, unit, '-5'],
    ['-0.0', unit, '0'],
    [-0, unit, '0'],
    [1e-4, unit, '0.0001'],
    [99999999999.9999, unit, '99999999999.9999'],
    [2, qty, '2'],
    [0.0001, qty, '0.0001'],
  ])('reads %j as %s', (value, rule, expected) => {
    expect(parseWireDecimal(value, rule)).toEqual({ value: expected });
  });

  it.each([
    [0, qty, 'must be greater than 0'],
    [-1, qty, 'must be greater than 0'],
    [0.00001, unit, 'must have at most 4 decimals'],
    [0.30000000000000004, unit, 'must have at most 4 decimals'],
    ['1.23456', unit, 'must have at most 4 decimals'],
    [Infinity, unit, 'must be a finite number'],
    ['1e3', unit, 'must be a decimal number (e.g. 12.5)'],
    ['abc', unit, 'must be a decimal number (e.g. 12.5)'],
    ['', unit, 'must be a decimal number (e.g. 12.5)'],
    [1e12, unit, 'must be at most 99999999999.9999 in size'],
    [-1e12, unit, 'must be at most 99999999999.9999 in size'],
  ])('refuses %j', (value, rule, message) => {
    expect(parseWireDecimal(value, rule)).toEqual({ message });
  });

  it('gives back the decimal a client wrote for any number with at most 4 decimals', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -999_999_999, max: 999_999_999 }),
        fc.integer({ min: 0, max: 4 }),
        (n, d) => {
          const text = (n / 10 ** d).toFixed(d);
          const parsed = parseWireDecimal(Number(text), unit);
          expect(parsed).toEqual({ value: String(Number(text)) === '-0' ? '0' : String(Number(text)) });
        },
      ),
    );
  });
});
