import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalDecimal, decimalPlaces, readWireDecimal } from './wireDecimal.ts';

const read = (value: number | string) => {
  const result = readWireDecimal(value);
  return 'value' in result ? canonicalDecimal(result.value) : result.problem;
};

describe('readWireDecimal', () => {
  it.each([
    [0.1, '0.1'],
    [12.5, '12.5'],
    [1e-7, '0.0000001'],
    [-0, '0'],
    [100, '100'],
    [' 12.50 ', '12.5'],
    ['-3.25', '-3.25'],
    ['0.8000', '0.8'],
    ['-0.000', '0'],
  ])('reads %j as %s', (value, expected) => {
    expect(read(value)).toBe(expected);
  });

  it.each([
    [Infinity, 'not_finite'],
    [-Infinity, 'not_finite'],
    [Number.NaN, 'not_finite'],
    ['1e3', 'not_decimal'],
    ['', 'not_decimal'],
    ['.5', 'not_decimal'],
    ['5.', 'not_decimal'],
    ['+5', 'not_decimal'],
    ['1,5', 'not_decimal'],
    ['abc', 'not_decimal'],
  ])('refuses %j as %s', (value, problem) => {
    expect(read(value)).toBe(problem);
  });

  it('reads a number as the decimal its shortest spelling shows', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const result = readWireDecimal(x);
        expect('value' in result && Number(result.value.toFixed())).toBe(Object.is(x, -0) ? 0 : x);
      }),
    );
  });
});

describe('decimalPlaces', () => {
  it.each([
    ['0', 0],
    ['12', 0],
    ['1200', 0],
    ['0.8000', 1],
    ['1.2345', 4],
    ['-0.00001', 5],
  ])('%s has %i', (text, places) => {
    const result = readWireDecimal(text);
    expect('value' in result && decimalPlaces(result.value)).toBe(places);
  });
});
