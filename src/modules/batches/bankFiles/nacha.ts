import { Temporal } from 'temporal-polyfill';
import { accountNumberDigits, isValidRoutingNumber } from '../../mandates/index.ts';
import type { PlainDate } from '../../../core/calendar.ts';
import { FieldProblems, addMinor, instantOf, isPlainDate, transliterateLatin } from './fields.ts';

/**
 * NACHA ACH files: a debit file we originate (PPD or CCD debits) and the return file the ODFI sends back. Fixed
 * 94-character records, blocked by 10 (NACHA Operating Rules, Appendix One); docs/bank-files.md has the layouts.
 */

export const RECORD_LENGTH = 94;
export const BLOCKING_FACTOR = 10;

/** PPD: a consumer's account, under a personal authorisation; CCD: a company's account. */
export const SEC_CODES = ['PPD', 'CCD'] as const;
export type SecCode = (typeof SEC_CODES)[number];
export type AchAccountType = 'checking' | 'savings';

/** Transaction codes of a live debit: 27 to a checking (demand) account, 37 to a savings account. */
const DEBIT_CODES: Readonly<Record<AchAccountType, string>> = { checking: '27', savings: '37' };
/** Service class 225: the batch holds debits only. */
const DEBITS_ONLY = '225';

export interface NachaDebitEntry {
  /** Our payment id: the Individual Identification Number (PPD) or Identification Number (CCD), echoed on returns. */
  id: string;
  amountMinor: number;
  /** USD: ACH moves dollars; the amount field is cents. */
  currency: string;
  routingNumber: string;
  accountNumber: string;
  accountType: AchAccountType;
  /** The individual's (PPD) or receiving company's (CCD) name. */
  name: string;
  discretionaryData?: string;
  /** Payment-related information for one 05 addenda record. */
  addenda?: string;
}

export interface NachaDebitBatch {
  secCode: SecCode;
  companyName: string;
  /** Usually "1" followed by the originator's 9-digit EIN, as the ODFI assigned it. */
  companyIdentification: string;
  companyDiscretionaryData?: string;
  /** Shown on the receiver's statement, e.g. SUBSCRIPT. */
  entryDescription: string;
  descriptiveDate?: string;
  effectiveEntryDate: PlainDate;
  /** The originating bank's routing number; records carry its first 8 digits. */
  originatingDfi: string;
  entries: readonly NachaDebitEntry[];
}

export interface NachaDebitFileInput {
  /** The routing number of the bank or operator receiving the file. */
  immediateDestination: string;
  immediateDestinationName: string;
  /** A 9-digit routing number or tax id, or the 10 characters the bank assigned. */
  immediateOrigin: string;
  immediateOriginName: string;
  /** The instant the file is made, from the caller's clock; written as date and time in `timeZone`. */
  createdAt: string;
  /** Defaults to UTC. */
  timeZone?: string;
  /** A-Z or 0-9, distinguishing files made the same day; defaults to A. */
  fileIdModifier?: string;
  referenceCode?: string;
  /**
   * The sequence part of the first trace number (the ODFI's 8 digits, then 7 digits); entries are numbered on from
   * it in file order. Defaults to 1.
   */
  traceSequenceStart?: number;
  batches: readonly NachaDebitBatch[];
}

const MAX_ENTRY_AMOUNT_MINOR = 9_999_999_999;
const MAX_TOTAL_MINOR = 999_999_999_999;
const MAX_TRACE_SEQUENCE = 9_999_999;
export const ENTRY_HASH_MODULUS = 10_000_000_000;

/**
 * Free text in the characters ACH alphanumeric fields carry, as banks want them: accented Latin letters as base
 * letters, upper case, any other character outside printable ASCII as a space, runs of spaces as one.
 */
export function toNachaText(text: string): string {
  return transliterateLatin(text)
    .toUpperCase()
    .replace(/[^\x20-\x7e]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An alphanumeric field: left-justified, space-filled. */
function alpha(value: string, width: number): string {
  return value.padEnd(width, ' ');
}

/** A numeric field: right-justified, zero-filled. */
function numeric(value: number | string, width: number): string {
  return String(value).padStart(width, '0');
}

function yymmdd(date: PlainDate): string {
  return date.slice(2, 4) + date.slice(5, 7) + date.slice(8, 10);
}

interface CheckedEntry {
  entry: NachaDebitEntry;
  accountNumber: string;
  name: string;
  discretionaryData: string;
  addenda: string | undefined;
}

interface CheckedBatch {
  batch: NachaDebitBatch;
  companyName: string;
  companyDiscretionaryData: string;
  entryDescription: string;
  descriptiveDate: string;
  entries: CheckedEntry[];
}

function checkText(
  text: string | undefined,
  field: string,
  max: number,
  problems: FieldProblems,
  required = true,
): string {
  const converted = toNachaText(text ?? '');
  if (converted === '' && required) {
    problems.add(field, 'must have a printable character');
  } else if (converted.length > max) {
    problems.add(field, `must be at most ${max} characters, not ${converted.length}`);
  }
  return converted;
}

function checkRouting(routing: string, field: string, problems: FieldProblems): void {
  if (!isValidRoutingNumber(routing)) {
    problems.add(field, 'must be a 9-digit ABA routing number with a valid check digit');
  }
}

function checkFile(input: NachaDebitFileInput): {
  createdAt: Temporal.ZonedDateTime;
  batches: CheckedBatch[];
} {
  const problems = new FieldProblems();
  const createdAt = checkFileHeader(input, problems);
  checkTraceSequence(input, problems);
  if (input.batches.length === 0) problems.add('batches', 'must have at least one batch');
  const firstEntryOf = new Map<string, string>();
  const batches = input.batches.map((batch, b) =>
    checkBatch(batch, `batches[${b}].`, firstEntryOf, problems),
  );
  checkTotal(
    input.batches.flatMap((batch) => batch.entries),
    'batches',
    problems,
  );
  problems.throwIfAny();
  return { createdAt: createdAt!, batches };
}

/** The file header's fields; returns the creation time in the file's time zone, undefined when that is bad. */
function checkFileHeader(
  input: NachaDebitFileInput,
  problems: FieldProblems,
): Temporal.ZonedDateTime | undefined {
  checkRouting(input.immediateDestination, 'immediateDestination', problems);
  if (!/^[0-9A-Z]?\d{9}$/.test(input.immediateOrigin)) {
    problems.add('immediateOrigin', 'must be 9 digits, or 10 characters of which the last 9 are digits');
  }
  checkText(input.immediateDestinationName, 'immediateDestinationName', 23, problems);
  checkText(input.immediateOriginName, 'immediateOriginName', 23, problems);
  const createdAt = checkCreatedAt(input, problems);
  if (input.fileIdModifier !== undefined && !/^[A-Z0-9]$/.test(input.fileIdModifier)) {
    problems.add('fileIdModifier', 'must be one character A-Z or 0-9');
  }
  checkText(input.referenceCode, 'referenceCode', 8, problems, false);
  return createdAt;
}

function checkCreatedAt(
  input: NachaDebitFileInput,
  problems: FieldProblems,
): Temporal.ZonedDateTime | undefined {
  const instant = instantOf(input.createdAt);
  if (!instant) problems.add('createdAt', 'must be an ISO 8601 instant with Z or an offset');
  try {
    return (instant ?? Temporal.Instant.fromEpochMilliseconds(0)).toZonedDateTimeISO(input.timeZone ?? 'UTC');
  } catch {
    problems.add('timeZone', 'must be an IANA time zone');
    return undefined;
  }
}

/** Every entry gets the next trace number, so the start must leave room for all of them. */
function checkTraceSequence(input: NachaDebitFileInput, problems: FieldProblems): void {
  const start = input.traceSequenceStart ?? 1;
  const entryCount = input.batches.reduce((sum, batch) => sum + batch.entries.length, 0);
  if (!Number.isSafeInteger(start) || start < 1) {
    problems.add('traceSequenceStart', 'must be a whole number from 1');
  } else if (start + entryCount - 1 > MAX_TRACE_SEQUENCE) {
    problems.add('traceSequenceStart', `leaves too few trace numbers for ${entryCount} entries`);
  }
}

function checkBatch(
  batch: NachaDebitBatch,
  prefix: string,
  firstEntryOf: Map<string, string>,
  problems: FieldProblems,
): CheckedBatch {
  const at = (field: string) => prefix + field;
  if (!SEC_CODES.includes(batch.secCode)) {
    problems.add(at('secCode'), `must be one of ${SEC_CODES.join(', ')}`);
  }
  if (!/^[0-9A-Z]{1,10}$/.test(batch.companyIdentification)) {
    problems.add(at('companyIdentification'), 'must be 1 to 10 characters A-Z or 0-9');
  }
  if (!isPlainDate(batch.effectiveEntryDate)) {
    problems.add(at('effectiveEntryDate'), 'must be a date YYYY-MM-DD');
  }
  checkRouting(batch.originatingDfi, at('originatingDfi'), problems);
  if (batch.entries.length === 0) problems.add(at('entries'), 'must have at least one entry');
  const entries = batch.entries.map((entry, e) =>
    checkEntry(entry, at(`entries[${e}].`), firstEntryOf, problems),
  );
  checkTotal(batch.entries, at('entries'), problems);
  return {
    batch,
    companyName: checkText(batch.companyName, at('companyName'), 16, problems),
    companyDiscretionaryData: checkText(
      batch.companyDiscretionaryData,
      at('companyDiscretionaryData'),
      20,
      problems,
      false,
    ),
    entryDescription: checkText(batch.entryDescription, at('entryDescription'), 10, problems),
    descriptiveDate: checkText(batch.descriptiveDate, at('descriptiveDate'), 6, problems, false),
    entries,
  };
}

function checkEntry(
  entry: NachaDebitEntry,
  prefix: string,
  firstEntryOf: Map<string, string>,
  problems: FieldProblems,
): CheckedEntry {
  const field = (name: string) => prefix + name;
  if (!/^[0-9A-Za-z-]{1,15}$/.test(entry.id)) {
    problems.add(field('id'), 'must be 1 to 15 characters A-Z, a-z, 0-9 or -');
  } else {
    const first = firstEntryOf.get(entry.id);
    if (first !== undefined) problems.add(field('id'), `repeats ${first}`);
    else firstEntryOf.set(entry.id, field('id'));
  }
  if (
    !Number.isSafeInteger(entry.amountMinor) ||
    entry.amountMinor < 1 ||
    entry.amountMinor > MAX_ENTRY_AMOUNT_MINOR
  ) {
    problems.add(field('amountMinor'), `must be a whole number of cents from 1 to ${MAX_ENTRY_AMOUNT_MINOR}`);
  }
  if (entry.currency !== 'USD') problems.add(field('currency'), 'must be USD');
  checkRouting(entry.routingNumber, field('routingNumber'), problems);
  const accountNumber = accountNumberDigits(entry.accountNumber);
  if (accountNumber === undefined) problems.add(field('accountNumber'), 'must be 4 to 17 digits');
  if (DEBIT_CODES[entry.accountType] === undefined) {
    problems.add(field('accountType'), 'must be checking or savings');
  }
  return {
    entry,
    accountNumber: accountNumber ?? '',
    name: checkText(entry.name, field('name'), 22, problems),
    discretionaryData: checkText(entry.discretionaryData, field('discretionaryData'), 2, problems, false),
    addenda:
      entry.addenda === undefined || entry.addenda.trim() === ''
        ? undefined
        : checkText(entry.addenda, field('addenda'), 80, problems),
  };
}

/** A control record's total field holds 12 digits; amounts already refused as not whole are left out. */
function checkTotal(entries: readonly NachaDebitEntry[], field: string, problems: FieldProblems): void {
  const total = entries.reduce(
    (sum, entry) => (Number.isSafeInteger(entry.amountMinor) ? sum + entry.amountMinor : sum),
    0,
  );
  if (total > MAX_TOTAL_MINOR) problems.add(field, `total more than ${MAX_TOTAL_MINOR} cents`);
}

export interface Totals {
  entryAndAddendaCount: number;
  entryHash: number;
  debitMinor: number;
}

/**
 * A NACHA file of debit batches, records of 94 characters separated by LF, padded with all-9 records to a
 * multiple of 10. Each batch's control carries its entry and addenda count, the entry hash (the sum of the
 * receiving banks' 8-digit routing prefixes, its last 10 digits) and the debit total; the file control sums them.
 * Refuses input that breaks a rule with a ValidationError (code bank_file_input_invalid) naming every bad field;
 * nothing is truncated.
 */
export function buildNachaDebitFile(input: NachaDebitFileInput): string {
  const { createdAt, batches } = checkFile(input);
  const records = [fileHeaderRecord(input, createdAt)];
  const file: Totals = { entryAndAddendaCount: 0, entryHash: 0, debitMinor: 0 };
  let sequence = input.traceSequenceStart ?? 1;
  batches.forEach((checked, b) => {
    const totals = pushBatch(records, checked, b + 1, sequence);
    sequence += checked.entries.length;
    file.entryAndAddendaCount += totals.entryAndAddendaCount;
    file.entryHash = (file.entryHash + totals.entryHash) % ENTRY_HASH_MODULUS;
    file.debitMinor = addMinor(file.debitMinor, totals.debitMinor);
  });
  records.push(fileControlRecord(batches.length, records.length + 1, file));
  while (records.length % BLOCKING_FACTOR !== 0) records.push('9'.repeat(RECORD_LENGTH));
  return records.join('\n') + '\n';
}

function fileHeaderRecord(input: NachaDebitFileInput, created: Temporal.ZonedDateTime): string {
  return (
    '1' +
    '01' +
    ` ${input.immediateDestination}` +
    input.immediateOrigin.padStart(10, ' ') +
    yymmdd(created.toPlainDate().toString()) +
    numeric(created.hour, 2) +
    numeric(created.minute, 2) +
    (input.fileIdModifier ?? 'A') +
    '094' +
    numeric(BLOCKING_FACTOR, 2) +
    '1' +
    alpha(toNachaText(input.immediateDestinationName), 23) +
    alpha(toNachaText(input.immediateOriginName), 23) +
    alpha(toNachaText(input.referenceCode ?? ''), 8)
  );
}

/**
 * Pushes one batch (header, entries with their addenda, control), its entries traced from `firstSequence` on, and
 * returns the batch's totals.
 */
function pushBatch(
  records: string[],
  checked: CheckedBatch,
  batchNumber: number,
  firstSequence: number,
): Totals {
  const odfi = checked.batch.originatingDfi.slice(0, 8);
  const batchNumberField = numeric(batchNumber, 7);
  records.push(batchHeaderRecord(checked, odfi, batchNumberField));
  const totals: Totals = { entryAndAddendaCount: 0, entryHash: 0, debitMinor: 0 };
  checked.entries.forEach((entry, e) => {
    const entrySequence = numeric(firstSequence + e, 7);
    records.push(entryDetailRecord(entry, odfi, entrySequence));
    if (entry.addenda !== undefined)
      records.push('7' + '05' + alpha(entry.addenda, 80) + '0001' + entrySequence);
    totals.entryAndAddendaCount += entry.addenda === undefined ? 1 : 2;
    totals.entryHash =
      (totals.entryHash + Number(entry.entry.routingNumber.slice(0, 8))) % ENTRY_HASH_MODULUS;
    totals.debitMinor = addMinor(totals.debitMinor, entry.entry.amountMinor);
  });
  records.push(batchControlRecord(checked.batch, totals, odfi, batchNumberField));
  return totals;
}

function batchHeaderRecord(checked: CheckedBatch, odfi: string, batchNumber: string): string {
  const { batch } = checked;
  return (
    '5' +
    DEBITS_ONLY +
    alpha(checked.companyName, 16) +
    alpha(checked.companyDiscretionaryData, 20) +
    alpha(batch.companyIdentification, 10) +
    batch.secCode +
    alpha(checked.entryDescription, 10) +
    alpha(checked.descriptiveDate, 6) +
    yymmdd(batch.effectiveEntryDate) +
    // NOTE: the settlement date (3) is left blank: the ACH operator fills it in.
    '   ' +
    '1' +
    odfi +
    batchNumber
  );
}

function entryDetailRecord(checked: CheckedEntry, odfi: string, entrySequence: string): string {
  const { entry } = checked;
  return (
    '6' +
    DEBIT_CODES[entry.accountType] +
    entry.routingNumber +
    alpha(checked.accountNumber, 17) +
    numeric(entry.amountMinor, 10) +
    alpha(entry.id, 15) +
    alpha(checked.name, 22) +
    alpha(checked.discretionaryData, 2) +
    (checked.addenda === undefined ? '0' : '1') +
    odfi +
    entrySequence
  );
}

function batchControlRecord(
  batch: NachaDebitBatch,
  totals: Totals,
  odfi: string,
  batchNumber: string,
): string {
  return (
    '8' +
    DEBITS_ONLY +
    numeric(totals.entryAndAddendaCount, 6) +
    numeric(totals.entryHash, 10) +
    numeric(totals.debitMinor, 12) +
    numeric(0, 12) +
    alpha(batch.companyIdentification, 10) +
    // Message authentication code (19) and reserved (6): blank.
    ' '.repeat(25) +
    odfi +
    batchNumber
  );
}

/** The file control; `recordCount` counts every record up to and including it, padding excluded. */
function fileControlRecord(batchCount: number, recordCount: number, file: Totals): string {
  return (
    '9' +
    numeric(batchCount, 6) +
    numeric(Math.ceil(recordCount / BLOCKING_FACTOR), 6) +
    numeric(file.entryAndAddendaCount, 8) +
    numeric(file.entryHash, 10) +
    numeric(file.debitMinor, 12) +
    numeric(0, 12) +
    ' '.repeat(39)
  );
}
