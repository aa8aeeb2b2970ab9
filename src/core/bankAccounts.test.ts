import { describe, expect, it } from 'vitest';
import {
  accountNumberDigits,
  ibanProblem,
  isValidBic,
  isValidBranchCode,
  isValidIban,
  isValidRoutingNumber,
  lastFour,
  normalizeIban,
} from './bankAccounts.ts';

describe('IBAN', () => {
  // The registry's own examples.
  it.each([
    'DE89370400440532013000',
    'GB29NWBK60161331926819',
    'NL91ABNA0417164300',
    'FR1420041010050500013M02606',
    'BE68539007547034',
    'NO9386011117947',
    'MT84MALT011000012345MTLCAST001S',
    'CH9300762011623852957',
    'SA0380000000608010167519',
    'LC55HEMM000100010012001200023015',
  ])('accepts %s', (iban) => {
    expect(ibanProblem(iban)).toBeUndefined();
    expect(isValidIban(iban)).toBe(true);
  });

  it('reads the printed form: spaces and lower case', () => {
    expect(normalizeIban('de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(isValidIban(normalizeIban(' gb29 nwbk 6016 1331 9268 19 '))).toBe(true);
  });

  it.each([
    ['DE89370400440532013001', 'has wrong check digits'],
    ['DE98370400440532013000', 'has wrong check digits'],
    ['GB29NWBK60161331926891', 'has wrong check digits'],
    ['DE8937040044053201300', 'an IBAN of DE has 22 characters, not 21'],
    ['NL91ABNA04171643001', 'an IBAN of NL has 18 characters, not 19'],
    ['US12345678901234567890', 'US is not a country that uses IBANs'],
    ['ZA12345678901234567890', 'ZA is not a country that uses IBANs'],
    ['D89370400440532013000', 'must be an IBAN: a country code, two check digits, then letters and digits'],
    ['DEXX370400440532013000', 'must be an IBAN: a country code, two check digits, then letters and digits'],
    [
      'DE89-3704-0044-0532-0130-00',
      'must be an IBAN: a country code, two check digits, then letters and digits',
    ],
    ['', 'must be an IBAN: a country code, two check digits, then letters and digits'],
  ])('refuses %j: %s', (iban, problem) => {
    expect(ibanProblem(iban)).toBe(problem);
    expect(isValidIban(iban)).toBe(false);
  });
});

describe('BIC', () => {
  it.each(['DEUTDEFF', 'DEUTDEFF500', 'NWBKGB2L', 'ABNANL2A', 'BNPAFRPPXXX', 'SBZAZAJJ'])(
    'accepts %s',
    (bic) => {
      expect(isValidBic(bic)).toBe(true);
    },
  );

  it.each([
    'DEUTDEF',
    'DEUTDEFF5',
    'DEUTDEFF50',
    'DEUTDEFF5000',
    'D3UTDEFF',
    'DEUT1EFF',
    'deutdeff',
    'DEUT DEFF',
    '',
  ])('refuses %j', (bic) => {
    expect(isValidBic(bic)).toBe(false);
  });
});

describe('ABA routing number', () => {
  it.each(['021000021', '011000015', '111000025', '121000358', '026009593', '322271627'])(
    'accepts %s',
    (rtn) => {
      expect(isValidRoutingNumber(rtn)).toBe(true);
    },
  );

  it.each([
    ['021000022', 'checksum'],
    ['111000026', 'checksum'],
    ['02100002', 'eight digits'],
    ['0210000210', 'ten digits'],
    ['02100002a', 'a letter'],
    ['130000009', 'prefix 13 names no district'],
    ['500000008', 'prefix 50 names no district'],
    ['000000000', 'all zeros, though its checksum holds'],
  ])('refuses %s (%s)', (rtn) => {
    expect(isValidRoutingNumber(rtn)).toBe(false);
  });
});

describe('account and branch numbers', () => {
  it('reads account numbers as digits, grouped or not, 4 to 17 of them', () => {
    expect(accountNumberDigits('62001234567')).toBe('62001234567');
    expect(accountNumberDigits('6200 123 4567')).toBe('62001234567');
    expect(accountNumberDigits('6200-123-4567')).toBe('62001234567');
    expect(accountNumberDigits('1234')).toBe('1234');
    expect(accountNumberDigits('1'.repeat(17))).toBe('1'.repeat(17));
    for (const bad of ['123', '1'.repeat(18), '62001234567x', '6200.1234', '', '  ']) {
      expect(accountNumberDigits(bad)).toBeUndefined();
    }
  });

  it('takes branch codes as printed: 250655, 12-34-56, 123 456, SBIN0001234', () => {
    for (const good of ['250655', '12-34-56', '123 456', 'SBIN0001234', '051']) {
      expect(isValidBranchCode(good)).toBe(true);
    }
    for (const bad of ['12', '-123', '123-', '12_34', 'x'.repeat(21), '']) {
      expect(isValidBranchCode(bad)).toBe(false);
    }
  });

  it('keeps the last four characters', () => {
    expect(lastFour('62001234567')).toBe('4567');
    expect(lastFour('MT84MALT011000012345MTLCAST001S')).toBe('001S');
  });
});
