import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CARD_TYPES, cardDigits, cardTypeOf, cardTypesOf, isLuhnValid, matchesCardType } from './cards.ts';
import type { CardType } from './cards.ts';

/** `body` completed with its Luhn check digit. */
function withCheckDigit(body: string): string {
  for (let digit = 0; digit <= 9; digit++) {
    if (isLuhnValid(body + digit)) return body + digit;
  }
  throw new Error('unreachable');
}

/** A Luhn-valid number of `length` digits starting with `prefix`. */
const numberOf = (prefix: string, length: number) => withCheckDigit(prefix.padEnd(length - 1, '0'));

describe('isLuhnValid', () => {
  it.each([
    '4111111111111111',
    '4012888888881881',
    '5555555555554444',
    '378282246310005',
    '30569309025904',
    '6011111111111117',
    '3530111333300000',
    '79927398713',
  ])('accepts %s', (digits) => {
    expect(isLuhnValid(digits)).toBe(true);
  });

  it.each([
    '4111111111111112',
    '79927398710',
    '1234567812345678',
    '',
    '4111 1111 1111 1111',
    '41111111111111a1',
  ])('refuses %j', (digits) => {
    expect(isLuhnValid(digits)).toBe(false);
  });

  it('catches every single-digit typo and every swap of two different neighbours but 0/9', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{11,18}$/),
        fc.nat(),
        fc.integer({ min: 1, max: 9 }),
        (body, at, delta) => {
          const valid = withCheckDigit(body);
          const i = at % valid.length;
          const typo = valid.slice(0, i) + ((Number(valid[i]) + delta) % 10) + valid.slice(i + 1);
          expect(isLuhnValid(typo)).toBe(false);
          const j = at % (valid.length - 1);
          const [a, b] = [valid[j]!, valid[j + 1]!];
          if (a !== b && !['09', '90'].includes(a + b)) {
            expect(isLuhnValid(valid.slice(0, j) + b + a + valid.slice(j + 2))).toBe(false);
          }
        },
      ),
    );
  });
});

describe('cardDigits', () => {
  it('strips the spaces and dashes people group numbers with', () => {
    expect(cardDigits('4111 1111 1111 1111')).toBe('4111111111111111');
    expect(cardDigits('4111-1111-1111-1111')).toBe('4111111111111111');
    expect(cardDigits(' 4111111111111111 ')).toBe('4111111111111111');
  });

  it.each(['4111.1111.1111.1111', '4111x111', '', '  ', '４１１１'])('refuses %j', (text) => {
    expect(cardDigits(text)).toBeUndefined();
  });
});

describe('cardTypeOf', () => {
  it('spells every spec value as the spec does, whatever the case and spacing given', () => {
    for (const type of CARD_TYPES) {
      expect(cardTypeOf(type)).toBe(type);
      expect(cardTypeOf(type.toUpperCase())).toBe(type);
    }
    expect(cardTypeOf(' american   express ')).toBe('American Express');
    expect(cardTypeOf('mastercard')).toBe('Mastercard');
  });

  it.each(['Amex', 'Visa Electron', 'UnionPay', ''])('knows no %j', (text) => {
    expect(cardTypeOf(text)).toBeUndefined();
  });
});

describe('matchesCardType', () => {
  const cases: [CardType, string][] = [
    ['Visa', '4111111111111111'],
    ['Visa', '4222222222222'],
    ['Visa', numberOf('4', 19)],
    ['Mastercard', '5555555555554444'],
    ['Mastercard', '5105105105105100'],
    ['Mastercard', '2223003122003222'],
    ['Mastercard', numberOf('2720', 16)],
    ['American Express', '378282246310005'],
    ['American Express', '371449635398431'],
    ['Diners Club', '30569309025904'],
    ['Diners Club', '38520000023237'],
    ['Diners Club', '36227206271667'],
    ['Diners Club', numberOf('3095', 14)],
    ['Discover', '6011111111111117'],
    ['Discover', '6011000990139424'],
    ['Discover', numberOf('645', 16)],
    ['Discover', numberOf('65', 19)],
    ['Discover', numberOf('622126', 16)],
    ['JCB', '3530111333300000'],
    ['JCB', '3566002020360505'],
    ['JCB', numberOf('3589', 19)],
    ['Dankort', numberOf('5019', 16)],
    ['Dankort', numberOf('4571', 16)],
    ['Maestro', '6759649826438453'],
    ['Maestro', numberOf('5018', 12)],
    ['Maestro', numberOf('6304', 19)],
    ['Forbrugsforeningen', numberOf('600722', 16)],
    ['Unknown', numberOf('9', 16)],
    ['Unknown', '4111111111111111'],
    ['Unknown', numberOf('1', 12)],
  ];
  it.each(cases)('%s accepts %s', (type, digits) => {
    expect(isLuhnValid(digits)).toBe(true);
    expect(matchesCardType(digits, type)).toBe(true);
  });

  const mismatches: [CardType, string][] = [
    ['Visa', '5555555555554444'],
    ['Visa', numberOf('4', 15)],
    ['Mastercard', '4111111111111111'],
    ['Mastercard', numberOf('2221', 15)],
    ['Mastercard', numberOf('2721', 16)],
    ['American Express', numberOf('34', 16)],
    ['American Express', '4111111111111111'],
    ['Diners Club', numberOf('306', 14)],
    ['Discover', numberOf('6012', 16)],
    ['Discover', numberOf('622927', 16)],
    ['JCB', numberOf('3527', 16)],
    ['JCB', numberOf('3590', 16)],
    ['Dankort', numberOf('5020', 16)],
    ['Maestro', '4111111111111111'],
    ['Forbrugsforeningen', numberOf('600723', 16)],
    ['Unknown', numberOf('9', 11)],
    ['Unknown', numberOf('9', 20)],
  ];
  it.each(mismatches)('%s refuses %s', (type, digits) => {
    expect(matchesCardType(digits, type)).toBe(false);
  });
});

describe('cardTypesOf', () => {
  it('names the brands a number fits, Maestro last since its ranges are the widest', () => {
    expect(cardTypesOf('4111111111111111')).toEqual(['Visa']);
    expect(cardTypesOf(numberOf('5019', 16))).toEqual(['Dankort', 'Maestro']);
    expect(cardTypesOf('6011111111111117')).toEqual(['Discover', 'Maestro']);
    expect(cardTypesOf(numberOf('9', 16))).toEqual([]);
  });
});
