import { describe, expect, it } from 'vitest';
import { decimalForDocument, percentText, periodForDocument } from './documentText.ts';

describe('percentText', () => {
  it.each([
    ['0.15', '15'],
    ['0.075', '7.5'],
    ['0', '0'],
    ['1', '100'],
    ['0.123456', '12.3456'],
  ])('shows perc %s as %s%%', (perc, text) => {
    expect(percentText(perc)).toBe(text);
  });
});

describe('decimalForDocument', () => {
  it.each([
    ['3', 2, '3.00'],
    ['3.333', 2, '3.333'],
    ['-0.5', 2, '-0.50'],
    ['7', 0, '7'],
    ['1.5', 3, '1.500'],
    ['99999999999.9999', 2, '99,999,999,999.9999'],
    ['1234567.89', 2, '1,234,567.89'],
    ['-1234.5', 2, '-1,234.50'],
    ['1000', 0, '1,000'],
  ])('shows %s with at least %i decimals as %s', (text, digits, shown) => {
    expect(decimalForDocument(text, digits)).toBe(shown);
  });
});

describe('periodForDocument', () => {
  it.each([
    ['2026-12-01', '2027-01-01', '1 Dec 2026 – 31 Dec 2026'],
    ['2028-02-01', '2028-03-01', '1 Feb 2028 – 29 Feb 2028'],
    ['2026-01-31', '2026-02-28', '31 Jan 2026 – 27 Feb 2026'],
    ['2026-03-05', '2026-03-06', '5 Mar 2026 – 5 Mar 2026'],
  ])('[%s, %s) is served %s, the last day included', (start, end, shown) => {
    expect(periodForDocument(start, end)).toBe(shown);
  });
});
