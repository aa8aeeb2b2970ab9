import { describe, expect, it } from 'vitest';
import { creditOf, moneyOf } from './topUpShare.ts';

describe('a top-up credit against its invoice money', () => {
  const vat15 = { creditMinor: 10_000, totalMinor: 11_500 };

  it('splits a taxed invoice: 115.00 stands for 100.00 of credit, 57.50 for 50.00', () => {
    expect(creditOf(vat15, 11_500)).toBe(10_000);
    expect(creditOf(vat15, 5_750)).toBe(5_000);
    expect(moneyOf(vat15, 4_000)).toBe(4_600);
    // 0.10 of credit is 0.115 of money: half a cent rounds up.
    expect(moneyOf(vat15, 10)).toBe(12);
  });

  it('is the identity without tax', () => {
    const untaxed = { creditMinor: 10_000, totalMinor: 10_000 };
    for (const minor of [0, 1, 3_333, 10_000]) {
      expect(creditOf(untaxed, minor)).toBe(minor);
      expect(moneyOf(untaxed, minor)).toBe(minor);
    }
  });

  it('gives back exactly the credit asked for, whatever the rate', () => {
    for (const price of [
      vat15,
      { creditMinor: 333, totalMinor: 383 },
      { creditMinor: 7, totalMinor: 8 },
      { creditMinor: 9_999, totalMinor: 12_499 },
      { creditMinor: 100, totalMinor: 127 },
    ]) {
      for (let credit = 0; credit <= price.creditMinor; credit += 1)
        expect(creditOf(price, moneyOf(price, credit)), `${credit} of ${price.creditMinor}`).toBe(credit);
      expect(moneyOf(price, price.creditMinor)).toBe(price.totalMinor);
    }
  });

  it('adds parts up to the whole when each is taken cumulatively', () => {
    let credited = 0;
    let taken = 0;
    for (const part of [1, 10, 10, 10, 333, 4_000, 7_136]) {
      taken += creditOf(vat15, credited + part) - creditOf(vat15, credited);
      credited += part;
    }
    expect(credited).toBe(11_500);
    expect(taken).toBe(10_000);
  });
});
