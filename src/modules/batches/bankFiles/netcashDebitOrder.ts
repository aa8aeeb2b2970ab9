import type { PlainDate } from '../../../core/calendar.ts';
import { isNetcashKey } from '../../gateways/index.ts';
import { FieldProblems, addMinor, isPlainDate } from './fields.ts';

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

/** A field of a tab-delimited record holds no tab, no line break, nothing outside printable ASCII. */
const PRINTABLE = /^[\x20-\x7e]*$/;
const MAX_TEXT = 50;
const MAX_REFERENCE = 22;

function checkText(problems: FieldProblems, path: string, value: string, max: number, min = 1): void {
  if (value.trim().length < min) {
    problems.add(path, min > 1 ? `must be at least ${min} characters` : 'must not be blank');
  } else if (!PRINTABLE.test(value)) {
    problems.add(path, 'must be printable ASCII: no tab, line break or accented letter');
  } else if (value.length > max) {
    problems.add(path, `must be at most ${max} characters, not ${value.length}`);
  }
}

function checkHeader(input: NetcashDebitOrderFile, problems: FieldProblems): void {
  if (!isNetcashKey(input.serviceKey))
    problems.add('serviceKey', 'must be a GUID (the debit-order service key)');
  if (!isNetcashKey(input.softwareVendorKey)) problems.add('softwareVendorKey', 'must be a GUID');
  if (input.instruction !== 'TwoDay' && input.instruction !== 'Sameday') {
    problems.add('instruction', 'must be TwoDay or Sameday');
  }
  checkText(problems, 'batchName', input.batchName, MAX_TEXT);
  if (!isPlainDate(input.actionDate)) problems.add('actionDate', 'must be a date YYYY-MM-DD');
  if (input.lines.length === 0) problems.add('lines', 'must hold at least one debit');
}

function checkLine(line: NetcashDebitLine, at: string, problems: FieldProblems, refs: Set<string>): void {
  checkText(problems, `${at}.accountReference`, line.accountReference, MAX_REFERENCE, 5);
  checkText(problems, `${at}.accountName`, line.accountName, MAX_TEXT);
  checkText(problems, `${at}.bankAccountName`, line.bankAccountName, MAX_TEXT);
  if (!Object.hasOwn(ACCOUNT_TYPE_CODES, line.accountType)) {
    problems.add(`${at}.accountType`, 'must be current, savings or transmission');
  }
  if (!/^\d{6}$/.test(line.branchCode)) problems.add(`${at}.branchCode`, 'must be 6 digits');
  if (!/^\d{1,11}$/.test(line.bankAccountNumber)) {
    problems.add(`${at}.bankAccountNumber`, 'must be 1 to 11 digits');
  }
  if (!Number.isSafeInteger(line.amountMinor) || line.amountMinor <= 0) {
    problems.add(`${at}.amountMinor`, 'must be a whole number of cents above 0');
  }
  checkText(problems, `${at}.lineRef`, line.lineRef, MAX_TEXT);
  if (refs.has(line.lineRef))
    problems.add(`${at}.lineRef`, `repeats ${line.lineRef}: each line's must differ`);
  refs.add(line.lineRef);
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
 * The NIF file of a debit-order batch, records separated by CRLF and fields by tabs. Input that breaks the layout
 * throws `bank_file_input_invalid` naming every bad field by its path (`lines[2].branchCode`).
 */
export function buildNetcashDebitOrderFile(input: NetcashDebitOrderFile): string {
  const problems = new FieldProblems();
  checkHeader(input, problems);
  const refs = new Set<string>();
  input.lines.forEach((line, index) => checkLine(line, `lines[${index}]`, problems, refs));
  problems.throwIfAny();
  const header = [
    'H',
    input.serviceKey,
    '1',
    input.instruction,
    input.batchName,
    input.actionDate.replaceAll('-', ''),
    input.softwareVendorKey,
  ];
  const key = ['K', ...NETCASH_KEY_FIELDS.map((field) => field.id)];
  const total = input.lines.reduce((sum, line) => addMinor(sum, line.amountMinor), 0);
  const footer = ['F', String(input.lines.length), String(total), '9999'];
  const records = [header, key, ...input.lines.map(transactionRecord), footer];
  return records.map((record) => record.join('\t')).join('\r\n') + '\r\n';
}
