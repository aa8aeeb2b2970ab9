import { Temporal } from 'temporal-polyfill';
import { ValidationError, type FieldProblem } from '../../../errors.ts';

/**
 * What the bank-file builders and parsers share: how they refuse input, and how they fit free text (names,
 * remittance lines) into the narrow character sets banks accept. See docs/bank-files.md.
 */

/** A builder's input breaks a rule of the file format; `fields` names each field by its input path. */
export const BANK_FILE_INPUT_INVALID = 'bank_file_input_invalid';
/** A file handed to a parser is not the document it claims to be, or its control figures disagree. */
export const BANK_FILE_UNREADABLE = 'bank_file_unreadable';

/** Problems collected over a whole input, so one error names every bad field rather than only the first. */
export class FieldProblems {
  private readonly problems: FieldProblem[] = [];

  add(field: string, message: string): void {
    this.problems.push({ field, message });
  }

  /** What was found so far, in the order it was found. */
  list(): readonly FieldProblem[] {
    return this.problems;
  }

  throwIfAny(): void {
    if (this.problems.length > 0) throw new ValidationError(this.problems, BANK_FILE_INPUT_INVALID);
  }
}

export function unreadableFile(field: string, message: string): ValidationError {
  return ValidationError.field(field, message, BANK_FILE_UNREADABLE);
}

/**
 * A calendar date `YYYY-MM-DD` that exists (not 2026-02-30). NOTE: by arithmetic, not Temporal: a pain.008 checks
 * two dates a line, and Temporal's parsing took more of a 500-line file's making than its XML (docs/benchmarks.md,
 * "Batches").
 */
export function isPlainDate(text: string): boolean {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!parts) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days;
}

/** An ISO 8601 instant with `Z` or an offset; undefined when it is not one. */
export function instantOf(text: string): Temporal.Instant | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  try {
    return Temporal.Instant.from(text);
  } catch {
    return undefined;
  }
}

/** a + b for amounts in minor units, refusing a sum a binary double cannot hold exactly. */
export function addMinor(a: number, b: number): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw new RangeError(`amount ${a} + ${b} is beyond the safe integer range`);
  return sum;
}

/** Latin letters that Unicode decomposition does not reduce to a base letter, spelled out in Latin letters. */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'SS',
  Æ: 'AE',
  æ: 'ae',
  Œ: 'OE',
  œ: 'oe',
  Ø: 'O',
  ø: 'o',
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ð: 'D',
  ð: 'd',
  Þ: 'TH',
  þ: 'th',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
};

/**
 * Latin letters with diacritics as their base letters (ä → a, é → e, ç → c; ß → ss, Ø → O): Unicode compatibility
 * decomposition (which also splits ligatures such as Ĳ and ﬁ, and folds full-width forms), then the combining marks
 * dropped. Anything else (other scripts, symbols) is left as it is, for
 * the caller's character set to deal with.
 */
export function transliterateLatin(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{ASCII}]/gu, (char) => LETTERS[char] ?? char);
}

/**
 * Free text in a file's character set, as banks and providers want it (docs/bank-files.md, "SEPA direct debit:
 * `buildPain008`" and "Netcash debit order file: `buildNetcashDebitOrderFile`"): accented Latin letters as their base
 * letters (transliterateLatin), a character outside the set as its close equivalent inside it or else as a space,
 * runs of white space as one, the ends trimmed. `inSet` tests one character. Text left empty had nothing the set can
 * carry (a name written only in another script): the caller refuses it.
 */
export function fitText(text: string, inSet: RegExp, equivalents: Readonly<Record<string, string>>): string {
  return transliterateLatin(text)
    .replace(/./gsu, (char) => (inSet.test(char) ? char : (equivalents[char] ?? ' ')))
    .replace(/\s+/g, ' ')
    .trim();
}
