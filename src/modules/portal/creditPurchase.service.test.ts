import { describe, expect, it } from 'vitest';
import { topUpAmountOf } from './creditPurchase.service.ts';

const bounds = { minMinor: 100, maxMinor: 1_000_000_000 };
const read = (typed: string, currencyCode = 'USD') =>
  topUpAmountOf(typed, currencyCode, bounds, (minor) => `${currencyCode} ${minor / 100}`);
const GROUPING =
  'Write the amount with a point for decimals and thousands in groups of three, such as 1,250.50';

describe('the amount typed in the portal’s credit form', () => {
  it('reads a plain decimal, and thousands grouped in threes with commas or spaces', () => {
    const read100 = { minor: 10_000 };
    expect(read('100')).toEqual(read100);
    expect(read(' 100.00 ')).toEqual(read100);
    expect(read('1,250.50')).toEqual({ minor: 125_050 });
    expect(read('1 250.50')).toEqual({ minor: 125_050 });
    expect(read('1\u00a0250.50')).toEqual({ minor: 125_050 });
    expect(read('1\u202f234\u202f567')).toEqual({ minor: 123_456_700 });
    expect(read('999,999')).toEqual({ minor: 99_999_900 });
  });

  it('refuses separators out of place rather than reading past them', () => {
    for (const typed of [
      '1,0,0',
      '12,50',
      '1,00',
      '10,00.00',
      '1,2345',
      ',100',
      '100,',
      '1,,000',
      '1, 000',
    ]) {
      expect(read(typed), typed).toEqual({ problem: { field: 'amount', message: GROUPING } });
    }
    // Two kinds of separator in one amount, or one after the point.
    for (const typed of ['1,000 000', '1 000,000', '1.250,50', '1,250.5,0']) {
      expect(read(typed), typed).toEqual({ problem: { field: 'amount', message: GROUPING } });
    }
    expect(read('1\t000')).toEqual({ problem: { field: 'amount', message: GROUPING } });
    expect(read('1,000 USD')).toEqual({
      problem: { field: 'amount', message: 'Enter the amount as a number, such as 50.00' },
    });
  });
});
