import type { PlainDate } from '../../../core/calendar.ts';
import { isNetcashKey } from '../../gateways/index.ts';
import type { FieldProblem } from '../../../errors.ts';
import { FieldProblems, addMinor, fitText, isPlainDate } from './fields.ts';

/**
 * Netcash's debit-order batch file (docs/bank-files.md, "Netcash debit order file: `buildNetcashDebitOrderFile`"):
 * the tab-delimited NIF file Netcash's NIWS_NIF service takes (BatchFileUpload) and its portal imports. One H
 * (header), one K (the field ids the T records carry, in order), one T per debit, one F (footer). Pure: the caller
 * passes the batch's name and action date.
 */

/** The Software Vendor Key Netcash's layout says to use by a system that is not one of its ISVs. */
export const NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY = '24ade73c-98cf-47b3-99be-cc7b867b3080';

/** What the header's instruction says the file is: a dated (two-day) or a same-day debit-order batch. */
export type NetcashInstruction = 'TwoDay' | 'Sameday';

/** Netcash's bank account types: current (cheque) 1, savings 2, transmission 3. */
export type NetcashAccountType = 'current' | 'savings' | 'transmission';

const ACCOUNT_TYPE_CODES: Readonly<Record<NetcashAccountType, string>> = {
  current: '1',
  savings: '2',
  transmission: '3',
};

/** The field ids of the K record, in the order each T record carries them. */
export const NETCASH_KEY_FIELDS = [
  { id: '101', name: 'accountReference' },
  { id: '102', name: 'accountName' },
  { id: '131', name: 'bankingDetailType' },
  { id: '132', name: 'bankAccountName' },
  { id: '133', name: 'bankAccountType' },
  { id: '134', name: 'branchCode' },
  { id: '136', name: 'bankAccountNumber' },
  { id: '162', name: 'amount' },
  { id: '301', name: 'extra1' },
] as const;

/** Banking detail type 1: the line is debited from a bank account (2 would be a tokenised card). */
const BANK_ACCOUNT_DETAIL_TYPE = '1';

export interface NetcashDebitLine {
  /** The debtor's key in Netcash's debit-order masterfile: more than 4 characters, unique per debtor. */
  accountReference: string;
  /** The debtor, as the masterfile names them. */
  accountName: string;
  /** The bank account's holder. */
  bankAccountName: string;
  accountType: NetcashAccountType;
  /** The universal or branch code: 6 digits. */
  branchCode: string;
  bankAccountNumber: string;
  amountMinor: number;
  /** Our reference for the line (the payment id): Netcash reports it back in the statement's Extra 1. */
  lineRef: string;
}

export interface NetcashDebitOrderFile {
  /** The debit-order service key (a GUID) of the Netcash account the batch goes to. */
  serviceKey: string;
  softwareVendorKey: string;
  instruction: NetcashInstruction;
  batchName: string;
  actionDate: PlainDate;
  lines: readonly NetcashDebitLine[];
}

/** A key field of a tab-delimited record holds no tab, no line break, nothing outside printable ASCII. */
const PRINTABLE = /^[\x20-\x7e]*$/;
/** One character of printable ASCII: what a free-text field may hold once fitted (toNetcashText). */
const PRINTABLE_CHARACTER = /^[\x20-\x7e]$/;
const MAX_TEXT = 50;
const MAX_REFERENCE = 22;

/** Characters outside printable ASCII with a close equivalent inside it: typographic quotes and dashes. */
const NETCASH_EQUIVALENTS: Readonly<Record<string, string>> = {
  '´': "'",
  '‘': "'",
  '’': "'",
  '‚': "'",
  '‛': "'",
  '“': '"',
  '”': '"',
  '„': '"',
  '«': '"',
  '»': '"',
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '–': '-',
  '—': '-',
  '−': '-',
};

/**
 * Free text (names, the batch name) as the file can carry it, the way the SEPA builder fits its text (fitText):
 * accented Latin letters as their base letters (Zoë Müller → Zoe Muller, ß → ss), typographic quotes and dashes as
 * ASCII ones, tabs, line breaks and any other character as a space, runs of spaces as one. Only the file's copy
 * changes: our records keep the name as it was given.
 */
export function toNetcashText(text: string): string {
  return fitText(text, PRINTABLE_CHARACTER, NETCASH_EQUIVALENTS);
}

/** Why free text cannot go in the file once fitted (empty, or too long), or undefined; and the fitted text. */
export function netcashTextProblem(text: string, max = MAX_TEXT): { text: string; problem?: string } {
  const fitted = toNetcashText(text);
  if (text.trim() === '') return { text: fitted, problem: 'must not be blank' };
  if (fitted === '') {
    return {
      text: fitted,
      problem: 'must have a letter or digit that can be written in ASCII (accents are dropped)',
    };
  }
  if (fitted.length > max) {
    return {
      text: fitted,
      problem: `must be at most ${max} characters written in ASCII, not ${fitted.length}`,
    };
  }
  return { text: fitted };
}

/** A key (the account reference, Extra 1): written as given, since Netcash gives it back and we match on it. */
function checkKey(problems: FieldProblems, path: string, value: string, max: number, min = 1): void {
  if (value.trim().length < min) {
    problems.add(path, min > 1 ? `must be at least ${min} characters` : 'must not be blank');
  } else if (!PRINTABLE.test(value)) {
    problems.add(path, 'must be printable ASCII: no tab, line break or accented letter');
  } else if (value.length > max) {
    problems.add(path, `must be at most ${max} characters, not ${value.length}`);
  }
}

/** Free text checked once fitted to the file; the fitted text, which the record carries. */
function checkText(problems: FieldProblems, path: string, value: string): string {
  const { text, problem } = netcashTextProblem(value);
  if (problem) problems.add(path, problem);
  return text;
}

function checkHeader(input: NetcashDebitOrderFile, problems: FieldProblems): string {
  if (!isNetcashKey(input.serviceKey))
    problems.add('serviceKey', 'must be a GUID (the debit-order service key)');
  if (!isNetcashKey(input.softwareVendorKey)) problems.add('softwareVendorKey', 'must be a GUID');
  if (input.instruction !== 'TwoDay' && input.instruction !== 'Sameday') {
    problems.add('instruction', 'must be TwoDay or Sameday');
  }
  const batchName = checkText(problems, 'batchName', input.batchName);
  if (!isPlainDate(input.actionDate)) problems.add('actionDate', 'must be a date YYYY-MM-DD');
  if (input.lines.length === 0) problems.add('lines', 'must hold at least one debit');
  return batchName;
}

/** The line's problems, each named `at` and its field (`lines[2].`, or '' for a line on its own); the line as written. */
function checkLine(
  line: NetcashDebitLine,
  at: string,
  problems: FieldProblems,
  refs: Set<string>,
): NetcashDebitLine {
  checkKey(problems, `${at}accountReference`, line.accountReference, MAX_REFERENCE, 5);
  const accountName = checkText(problems, `${at}accountName`, line.accountName);
  const bankAccountName = checkText(problems, `${at}bankAccountName`, line.bankAccountName);
  if (!Object.hasOwn(ACCOUNT_TYPE_CODES, line.accountType)) {
    problems.add(`${at}accountType`, 'must be current, savings or transmission');
  }
  if (!/^\d{6}$/.test(line.branchCode)) problems.add(`${at}branchCode`, 'must be 6 digits');
  if (!/^\d{1,11}$/.test(line.bankAccountNumber)) {
    problems.add(`${at}bankAccountNumber`, 'must be 1 to 11 digits');
  }
  if (!Number.isSafeInteger(line.amountMinor) || line.amountMinor <= 0) {
    problems.add(`${at}amountMinor`, 'must be a whole number of cents above 0');
  }
  checkKey(problems, `${at}lineRef`, line.lineRef, MAX_TEXT);
  if (refs.has(line.lineRef))
    problems.add(`${at}lineRef`, `repeats ${line.lineRef}: each line's must differ`);
  refs.add(line.lineRef);
  return { ...line, accountName, bankAccountName };
}

/**
 * What keeps one debit out of the file, on its own (the header and the other lines aside), by field name: a line
 * with any leaves its batch, and the others still go (docs/gateways.md, "One customer never holds up a batch").
 */
export function netcashLineProblems(line: NetcashDebitLine): readonly FieldProblem[] {
  const problems = new FieldProblems();
  checkLine(line, '', problems, new Set());
  return problems.list();
}

function transactionRecord(line: NetcashDebitLine): string[] {
  return [
    'T',
    line.accountReference,
    line.accountName,
    BANK_ACCOUNT_DETAIL_TYPE,
    line.bankAccountName,
    ACCOUNT_TYPE_CODES[line.accountType],
    line.branchCode,
    line.bankAccountNumber,
    String(line.amountMinor),
    line.lineRef,
  ];
}

/**
 * The NIF file of a debit-order batch, records separated by CRLF and fields by tabs, free text fitted to printable
 * ASCII (toNetcashText). Input that breaks the layout throws `bank_file_input_invalid` naming every bad field by its
 * path (`lines[2].branchCode`).
 */
export function buildNetcashDebitOrderFile(input: NetcashDebitOrderFile): string {
  const problems = new FieldProblems();
  const batchName = checkHeader(input, problems);
  const refs = new Set<string>();
  const lines = input.lines.map((line, index) => checkLine(line, `lines[${index}].`, problems, refs));
  problems.throwIfAny();
  const header = [
    'H',
    input.serviceKey,
    '1',
    input.instruction,
    batchName,
    input.actionDate.replaceAll('-', ''),
    input.softwareVendorKey,
  ];
  const key = ['K', ...NETCASH_KEY_FIELDS.map((field) => field.id)];
  const total = lines.reduce((sum, line) => addMinor(sum, line.amountMinor), 0);
  const footer = ['F', String(lines.length), String(total), '9999'];
  const records = [header, key, ...lines.map(transactionRecord), footer];
  return records.map((record) => record.join('\t')).join('\r\n') + '\r\n';
}
