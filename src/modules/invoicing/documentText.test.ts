import { describe, expect, it } from 'vitest';
import { decimalForDocument, percentText, winAnsiText } from './documentText.ts';

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
    ['99999999999.9999', 2, '99999999999.9999'],
  ])('shows %s with at least %i decimals as %s', (text, digits, shown) => {
    expect(decimalForDocument(text, digits)).toBe(shown);
  });
});

describe('winAnsiText', () => {
  it('keeps Latin-1 and the Windows-1252 extras, and shows other characters as ?', () => {
    expect(winAnsiText('Zoë Ærø — €5 “ok”')).toBe('Zoë Ærø — €5 “ok”');
    expect(winAnsiText('Привет 你好 Łódź')).toBe('?????? ?? ?ód?');
    expect(winAnsiText('a\u0000b\nc')).toBe('a?b\nc');
  });
});
