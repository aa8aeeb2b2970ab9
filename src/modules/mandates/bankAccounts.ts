/**
 * Bank account identifiers: IBAN (ISO 13616), BIC (ISO 9362), ABA routing numbers, and the plain account and
 * branch numbers of domestic debit orders. Pure format and checksum checks; whether an account exists is for the
 * bank to say. IBAN and BIC rules come from ibantools.
 */
import {
  ValidationErrorsBIC,
  ValidationErrorsIBAN,
  countrySpecs,
  electronicFormatIBAN,
  getCountrySpecifications,
  validateBIC,
  validateIBAN,
} from 'ibantools';

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
 * Country specifications (length, BBAN layout) from ibantools: the SWIFT IBAN registry's countries, plus those
 * that issue IBANs without being in it (Algeria, Iran, Morocco, the CFA franc countries…) and the French
 * territories' and Åland's own codes.
 */
const IBAN_SPECS = getCountrySpecifications();

/** An IBAN in its electronic form: upper case, without the spaces (or dashes) of the printed form. */
export function normalizeIban(text: string): string {
  // ibantools removes spaces and dashes only; tabs and line breaks come in pasted text too.
  return electronicFormatIBAN(text.replace(/\s+/g, '')) ?? '';
}

/**
 * Why an IBAN (electronic form) is not one; undefined when it is. One problem, the most basic first. No message
 * repeats the IBAN: only its country and lengths.
 */
export function ibanProblem(iban: string): string | undefined {
  // ISO 13616: two letters, two check digits, then the BBAN. Checked first so that text of another shape gets
  // this message rather than one about the "country" in its first two characters.
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) {
    return 'must be an IBAN: a country code, two check digits, then letters and digits';
  }
  if (passesIbanChecks(iban)) return undefined;
  const { errorCodes } = validateIBAN(iban);
  const has = (code: ValidationErrorsIBAN) => errorCodes.includes(code);
  const country = iban.slice(0, 2);
  const spec = IBAN_SPECS[country];
  if (has(ValidationErrorsIBAN.NoIBANCountry) || !spec?.chars) {
    return `${country} is not a country that uses IBANs`;
  }
  if (has(ValidationErrorsIBAN.WrongBBANLength)) {
    return `an IBAN of ${country} has ${spec.chars} characters, not ${iban.length}`;
  }
  if (has(ValidationErrorsIBAN.WrongBBANFormat)) {
    const layout = bbanLayout(spec.bban_regexp);
    return layout
      ? `after its check digits an IBAN of ${country} has ${layout}`
      : `has letters or digits out of place for an IBAN of ${country}`;
  }
  // A typo fails both checks; the IBAN's own check digits are the ones people know.
  if (has(ValidationErrorsIBAN.WrongIBANChecksum)) return 'has wrong check digits';
  // ibantools also checks the national check digits inside the BBAN of the countries that have a public rule
  // (BE, ES, FR, NO, PL, PT and others; not DE or AT, whose rules vary by bank).
  if (has(ValidationErrorsIBAN.WrongAccountBankBranchChecksum)) {
    return `has wrong national check digits for ${country} in its account part`;
  }
  return errorCodes.length ? 'is not a valid IBAN' : undefined;
}

/** ISO 7064 MOD 97-10 of text in letters (10 to 35) and digits, digit by digit. */
export function mod97(text: string): number {
  let remainder = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const value = code >= 65 ? code - 55 : code - 48;
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder;
}

/** Each country's BBAN pattern, compiled once. */
const bbanPatterns = new Map<string, RegExp>();

/**
 * Whether an IBAN in the shape ibanProblem checks first passes every check of ibantools' validateIBAN: its country's
 * length and BBAN layout, its national check digits where ibantools knows the rule, and its own check digits (98
 * minus the MOD 97-10 of the BBAN, the country and 00). NOTE: the same checks as validateIBAN, without its cost: it
 * compiles the country's pattern on every call and computes the check digits through strings, which took most of
 * the time of a 500-line SEPA file's checks (docs/benchmarks.md, "Batches"). Only an IBAN that fails goes through
 * validateIBAN, for what to tell.
 */
function passesIbanChecks(iban: string): boolean {
  const country = iban.slice(0, 2);
  const spec = Object.hasOwn(countrySpecs, country) ? countrySpecs[country] : undefined;
  if (!spec?.chars || !spec.bban_regexp || iban.length !== spec.chars) return false;
  let pattern = bbanPatterns.get(country);
  if (!pattern) bbanPatterns.set(country, (pattern = new RegExp(spec.bban_regexp)));
  const bban = iban.slice(4);
  if (!pattern.test(bban)) return false;
  if (spec.bban_validation_func && !spec.bban_validation_func(bban)) return false;
  return 98 - mod97(`${bban}${country}00`) === Number(iban.slice(2, 4));
}

/** ibantools' BBAN pattern in words ("4 letters, then 10 digits"); undefined if it is not a run of [..]{n}. */
function bbanLayout(pattern: string | null): string | undefined {
  if (!pattern) return undefined;
  const runs: { kind: string; count: number }[] = [];
  let rest = pattern.replace(/^\^/, '').replace(/\$$/, '');
  while (rest) {
    const run = /^\[([^\]]+)\]\{(\d+)\}/.exec(rest);
    if (!run) return undefined;
    const letters = run[1]!.includes('A-Z');
    const digits = run[1]!.includes('0-9');
    const kind = letters && digits ? 'letter or digit' : letters ? 'letter' : 'digit';
    const last = runs.at(-1);
    if (last?.kind === kind) last.count += Number(run[2]);
    else runs.push({ kind, count: Number(run[2]) });
    rest = rest.slice(run[0].length);
  }
  return runs
    .map(
      ({ kind, count }) =>
        `${count} ${count === 1 ? kind : kind.replace('letter', 'letters').replace(/digit$/, 'digits')}`,
    )
    .join(', then ');
}

export function isValidIban(iban: string): boolean {
  return ibanProblem(iban) === undefined;
}

/** A BIC in its electronic form: upper case, without spaces. */
export function normalizeBic(text: string): string {
  return text.replace(/\s+/g, '').toUpperCase();
}

/**
 * Why a BIC (electronic form) is not one; undefined when it is. ISO 9362: a 4-letter institution code, an ISO
 * 3166 country, a 2-character location and, optionally, a 3-character branch (8 or 11 characters). It has no
 * check digit, so this is all that can be checked offline.
 */
export function bicProblem(bic: string): string | undefined {
  const { valid, errorCodes } = validateBIC(bic);
  // ibantools takes lower case too; the electronic form is upper case (normalizeBic).
  if (valid && bic === bic.toUpperCase()) return undefined;
  const country = bic.slice(4, 6);
  if (
    errorCodes.includes(ValidationErrorsBIC.NoBICCountry) &&
    /^[A-Z]{2}$/.test(country) &&
    (bic.length === 8 || bic.length === 11)
  ) {
    return `has ${country} as its country (5th and 6th characters), which is not a country code`;
  }
  return 'must be a BIC: 4 letters for the bank, 2 for the country, 2 letters or digits for the place and optionally 3 for the branch (e.g. DEUTDEFF or DEUTDEFF500)';
}

export function isValidBic(bic: string): boolean {
  return bicProblem(bic) === undefined;
}

/**
 * BIC countries that may go with an IBAN country other than their own, in either order: territories whose banks
 * have BICs of their own but IBANs of the parent's scheme, as listed by XMLdation's EPC rule "IBAN & BIC relation"
 * (wiki.xmldation.com/Support/EPC/IBAN_&_BIC_relation), copied as listed (GG and JE appear under FR too).
 */
const SHARED_SCHEME_COUNTRIES: Readonly<Record<string, readonly string[]>> = {
  FR: ['GF', 'GP', 'MQ', 'YT', 'RE', 'BL', 'MF', 'PM', 'GG', 'JE', 'NC', 'PF', 'TF', 'WF'],
  MC: ['FR'],
  IE: ['GB'],
  GB: ['GG', 'JE', 'IM', 'VG'],
  DK: ['FO', 'GL'],
};

/**
 * The BIC's country should be the IBAN's, except for territories that share a scheme (docs/design/collections.md,
 * "Bank-account validation"). For a valid IBAN and BIC (electronic form); undefined when they agree. The message
 * names countries only.
 */
export function bicCountryProblem(iban: string, bic: string): string | undefined {
  const ibanCountry = iban.slice(0, 2);
  const bicCountry = bic.slice(4, 6);
  const shared = (a: string, b: string) => SHARED_SCHEME_COUNTRIES[a]?.includes(b) === true;
  if (ibanCountry === bicCountry || shared(ibanCountry, bicCountry) || shared(bicCountry, ibanCountry)) {
    return undefined;
  }
  return `is a BIC of ${bicCountry} (5th and 6th characters) but the IBAN is of ${ibanCountry}: the BIC must be that of the IBAN's bank`;
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
