/**
 * Bank account identifiers: IBAN (ISO 13616), BIC (ISO 9362), ABA routing numbers, and the plain account and
 * branch numbers of domestic debit orders. Pure format and checksum checks; whether an account exists is for the
 * bank to say.
 */

/** Spec, Payment methods: the bank-account Method values (returned as DebitMethod). */
export const DEBIT_METHODS = ['debit_order', 'ach', 'sepa'] as const;
export type DebitMethod = (typeof DEBIT_METHODS)[number];

/** debit_order, ach, sepa, also as people write them (Debit Order, SEPA, debit-order); undefined otherwise. */
export function debitMethodOf(text: string): DebitMethod | undefined {
  const wanted = text
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return DEBIT_METHODS.find((method) => method === wanted);
}

/**
 * The AccountType values (the spec shows only "Savings"): the kinds of account a debit order, an ACH debit or a
 * SEPA direct debit is drawn on, spelled as banks print them. Cheque and Current are one kind of account in
 * different countries' words, as is Checking in the United States; Transmission is South Africa's business
 * transaction account.
 */
export const ACCOUNT_TYPES = ['Cheque', 'Current', 'Checking', 'Savings', 'Transmission'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** The account type spelled as listed, whatever the letter case given; undefined if not listed. */
export function accountTypeOf(text: string): AccountType | undefined {
  const wanted = text.trim().toLowerCase();
  return ACCOUNT_TYPES.find((type) => type.toLowerCase() === wanted);
}

/**
 * IBAN length per country, from the SWIFT IBAN registry (release 98, 2024). French overseas territories, Åland and
 * the Crown dependencies use their parent's code (FR, FI, GB), so they need no entry.
 */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HN: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/** An IBAN in its electronic form: upper case, without the spaces of the printed form. */
export function normalizeIban(text: string): string {
  return text.replace(/\s+/g, '').toUpperCase();
}

/** Why an IBAN (electronic form) is not one; undefined when it is. */
export function ibanProblem(iban: string): string | undefined {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) {
    return 'must be an IBAN: a country code, two check digits, then letters and digits';
  }
  const country = iban.slice(0, 2);
  const length = IBAN_LENGTHS[country];
  if (length === undefined) return `${country} is not a country that uses IBANs`;
  if (iban.length !== length) return `an IBAN of ${country} has ${length} characters, not ${iban.length}`;
  if (ibanMod97(iban) !== 1) return 'has wrong check digits';
  return undefined;
}

/** ISO 7064 MOD 97-10 over the IBAN moved round (country and check digits last), letters as 10..35. */
function ibanMod97(iban: string): number {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of moved) {
    const value = char >= 'A' ? char.charCodeAt(0) - 55 : char.charCodeAt(0) - 48;
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder;
}

export function isValidIban(iban: string): boolean {
  return ibanProblem(iban) === undefined;
}

/**
 * ISO 9362: a 4-letter institution code, the 2-letter country, a 2-character location and, optionally, a
 * 3-character branch (8 or 11 characters). Upper case; spaces are not part of it.
 */
export function isValidBic(bic: string): boolean {
  return /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic);
}

/**
 * An ABA routing transit number: nine digits whose first two name a Federal Reserve district or kind of
 * institution (00-12, 21-32, 61-72, 80), with the weighted 3-7-1 checksum.
 */
export function isValidRoutingNumber(routing: string): boolean {
  if (!/^\d{9}$/.test(routing) || /^0+$/.test(routing)) return false;
  const prefix = Number(routing.slice(0, 2));
  const knownPrefix =
    prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80;
  if (!knownPrefix) return false;
  const d = [...routing].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

/** Bank account numbers are at most 17 digits (the width of the ACH entry's account field; domestic ones are shorter). */
export const ACCOUNT_NUMBER_MIN_DIGITS = 4;
export const ACCOUNT_NUMBER_MAX_DIGITS = 17;

/** The digits of an account number as people write it (spaces and dashes between groups); undefined otherwise. */
export function accountNumberDigits(text: string): string | undefined {
  const digits = text.replace(/[\s-]/g, '');
  return /^\d+$/.test(digits) &&
    digits.length >= ACCOUNT_NUMBER_MIN_DIGITS &&
    digits.length <= ACCOUNT_NUMBER_MAX_DIGITS
    ? digits
    : undefined;
}

/**
 * A branch (sort, BSB, universal branch) code: digits and letters, optionally grouped with spaces or dashes as
 * printed (12-34-56), 3 to 20 characters.
 */
export function isValidBranchCode(text: string): boolean {
  return /^[A-Za-z0-9](?:[A-Za-z0-9 -]{1,18})[A-Za-z0-9]$/.test(text);
}

/** The last four characters, the only part of an account kept in clear. */
export function lastFour(identifier: string): string {
  return identifier.slice(-4);
}
