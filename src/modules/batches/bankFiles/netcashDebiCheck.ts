import type { PlainDate } from '../../../core/calendar.ts';
import { isNetcashKey } from '../../gateways/index.ts';
import { FieldProblems, addMinor, isPlainDate } from './fields.ts';

/**
 * Netcash's DebiCheck collection file (docs/bank-files.md, "Netcash DebiCheck file: `buildNetcashDebiCheckFile`"):
 * the NIF file of a batch of collections under authenticated DebiCheck mandates, a file of its own beside the
 * ordinary debit-order file (netcashDebitOrder.ts). The header's instruction is `DebiCheck`; each transaction names
 * the debtor's masterfile key (the one its authentication was registered under), the amount in cents, the tracking
 * days and the authentication's contract reference, with our line reference in Extra 1 for the statement. Pure.
 */

/** The header's instruction of a DebiCheck collection batch. */
export const NETCASH_DEBICHECK_INSTRUCTION = 'DebiCheck';

/** The field ids of the K record, ascending, in the order each T record carries them. */
export const NETCASH_DEBICHECK_KEY_FIELDS = [
  { id: '101', name: 'accountReference' },
  { id: '162', name: 'amount' },
  { id: '232', name: 'trackingDays' },
  { id: '249', name: 'contractReference' },
  { id: '301', name: 'extra1' },
] as const;

export interface NetcashDebiCheckLine {
  /** The debtor's masterfile key, as its DebiCheck authentication named it. */
  accountReference: string;
  amountMinor: number;
  /** Days (1 to 10) the bank tracks the account after a failed collection; 0: none (the field left blank). */
  trackingDays: number;
  /** The authentication's contract reference, as Netcash gave it (NC…). */
  contractReference: string;
  /** Our reference for the line (the payment id): Netcash reports it back in the statement's Extra 1. */
  lineRef: string;
}

export interface NetcashDebiCheckFile {
  serviceKey: string;
  softwareVendorKey: string;
  batchName: string;
  actionDate: PlainDate;
  lines: readonly NetcashDebiCheckLine[];
}

const PRINTABLE = /^[\x20-\x7e]*$/;

function checkText(problems: FieldProblems, path: string, value: string, max: number): void {
  if (value.trim() === '') problems.add(path, 'must not be blank');
  else if (!PRINTABLE.test(value)) problems.add(path, 'must be printable ASCII: no tab or line break');
  else if (value.length > max) problems.add(path, `must be at most ${max} characters, not ${value.length}`);
}

function checkLine(line: NetcashDebiCheckLine, at: string, problems: FieldProblems, refs: Set<string>): void {
  checkText(problems, `${at}.accountReference`, line.accountReference, 22);
  if (!Number.isSafeInteger(line.amountMinor) || line.amountMinor <= 0) {
    problems.add(`${at}.amountMinor`, 'must be a whole number of cents above 0');
  }
  if (!Number.isInteger(line.trackingDays) || line.trackingDays < 0 || line.trackingDays > 10) {
    problems.add(`${at}.trackingDays`, 'must be 0 to 10');
  }
  checkText(problems, `${at}.contractReference`, line.contractReference, 50);
  checkText(problems, `${at}.lineRef`, line.lineRef, 50);
  if (refs.has(line.lineRef))
    problems.add(`${at}.lineRef`, `repeats ${line.lineRef}: each line's must differ`);
  refs.add(line.lineRef);
}

const transactionRecord = (line: NetcashDebiCheckLine): string[] => [
  'T',
  line.accountReference,
  String(line.amountMinor),
  line.trackingDays === 0 ? '' : String(line.trackingDays),
  line.contractReference,
  line.lineRef,
];

/**
 * The NIF file of a DebiCheck collection batch, records separated by CRLF and fields by tabs. Input that breaks the
 * layout throws `bank_file_input_invalid` naming every bad field by its path (`lines[2].contractReference`).
 */
export function buildNetcashDebiCheckFile(input: NetcashDebiCheckFile): string {
  const problems = new FieldProblems();
  if (!isNetcashKey(input.serviceKey))
    problems.add('serviceKey', 'must be a GUID (the debit-order service key)');
  if (!isNetcashKey(input.softwareVendorKey)) problems.add('softwareVendorKey', 'must be a GUID');
  checkText(problems, 'batchName', input.batchName, 50);
  if (!isPlainDate(input.actionDate)) problems.add('actionDate', 'must be a date YYYY-MM-DD');
  if (input.lines.length === 0) problems.add('lines', 'must hold at least one collection');
  const refs = new Set<string>();
  input.lines.forEach((line, index) => checkLine(line, `lines[${index}]`, problems, refs));
  problems.throwIfAny();
  const header = [
    'H',
    input.serviceKey,
    '1',
    NETCASH_DEBICHECK_INSTRUCTION,
    input.batchName,
    input.actionDate.replaceAll('-', ''),
    input.softwareVendorKey,
  ];
  const key = ['K', ...NETCASH_DEBICHECK_KEY_FIELDS.map((field) => field.id)];
  const total = input.lines.reduce((sum, line) => addMinor(sum, line.amountMinor), 0);
  const footer = ['F', String(input.lines.length), String(total), '9999'];
  const records = [header, key, ...input.lines.map(transactionRecord), footer];
  return records.map((record) => record.join('\t')).join('\r\n') + '\r\n';
}
