/**
 * A debtor's identity number as South-African debit orders carry it (AVS and DebiCheck, docs/gateways/netcash.md):
 * a South-African ID number, or a passport number. An ID number is 13 digits: the birth date (YYMMDD), four
 * sequence digits, the citizenship digit (0 citizen, 1 permanent resident, 2 refugee), one digit, and a Luhn check
 * digit (the Department of Home Affairs' layout).
 */
export type IdentityKind = 'sa_id' | 'passport';

/** An identity number's kind as people write it, any case and spacing: `sa_id` (also SA ID, ID) or `passport`. */
export function identityKindOf(text: string): IdentityKind | undefined {
  const letters = text.toLowerCase().replace(/[^a-z]/g, '');
  if (
    ['said', 'id', 'idnumber', 'rsaid', 'zaid', 'southafricanid', 'southafricanidnumber'].includes(letters)
  ) {
    return 'sa_id';
  }
  if (letters === 'passport' || letters === 'passportnumber') return 'passport';
  return undefined;
}

/** What is wrong with an identity number, in words, or null when it will do. */
export function identityNumberProblem(kind: IdentityKind, value: string): string | null {
  if (kind === 'passport') {
    return /^[A-Z0-9]{6,20}$/.test(value)
      ? null
      : 'must be a passport number: 6 to 20 capital letters and digits';
  }
  if (!/^\d{13}$/.test(value)) return 'must be a South-African ID number: 13 digits';
  if (!isBirthDate(value.slice(0, 6))) return 'must start with a birth date (YYMMDD)';
  if (!['0', '1', '2'].includes(value[10]!)) return 'has a citizenship digit (the 11th) other than 0, 1 or 2';
  if (!passesLuhn(value)) return 'has a wrong check digit';
  return null;
}

/** YYMMDD is a date in some century: 29 February only in a year that has one in 19YY or 20YY. */
function isBirthDate(yymmdd: string): boolean {
  const [yy, mm, dd] = [yymmdd.slice(0, 2), yymmdd.slice(2, 4), yymmdd.slice(4, 6)].map(Number) as [
    number,
    number,
    number,
  ];
  if (mm < 1 || mm > 12 || dd < 1) return false;
  const daysIn = (year: number) => new Date(Date.UTC(year, mm, 0)).getUTCDate();
  return dd <= Math.max(daysIn(1900 + yy), daysIn(2000 + yy));
}

/** The Luhn check over all the digits, the last being the check digit. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The last three characters, as a person may be shown an identity number (never the whole of it). */
export const identityNumberEnding = (value: string) => value.slice(-3);
