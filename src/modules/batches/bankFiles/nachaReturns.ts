import type { PlainDate } from '../../../core/calendar.ts';
import { addMinor, isPlainDate, unreadableFile } from './fields.ts';
import { ENTRY_HASH_MODULUS, RECORD_LENGTH } from './nacha.ts';
import type { Totals } from './nacha.ts';
import { achReason, type ReasonMapping } from '../../collections/index.ts';

/** The NACHA return file the ODFI sends back for a debit file of ours (nacha.ts): returns and notifications of change. */

interface ReturnedEntryBase {
  /** The 1-based line of the entry detail record in the file. */
  line: number;
  secCode: string;
  transactionCode: string;
  /** The receiving bank's routing number (8 digits and check digit), as the entry carries it. */
  routingNumber: string;
  accountNumber: string;
  amountMinor: number;
  /** Our payment id, as the original entry carried it. */
  individualId: string;
  name: string;
  /** The trace number of the original entry we sent, to match it by. */
  originalTraceNumber: string;
  originalReceivingDfi: string;
  /** The trace number of this return or notification entry. */
  traceNumber: string;
}

export interface NachaReturn extends ReturnedEntryBase {
  kind: 'return';
  /** R01, R03... */
  returnReasonCode: string;
  reason: ReasonMapping;
  /** R14/R15 only; YYMMDD read as 20YY. */
  dateOfDeath: PlainDate | undefined;
  addendaInformation: string;
}

/** A notification of change (addenda 98): the entry was posted, but the account details need correcting. */
export interface NachaChangeNotice extends ReturnedEntryBase {
  kind: 'notification_of_change';
  /** C01 (account number), C02 (routing number), C05 (transaction code)... */
  changeCode: string;
  correctedData: string;
}

export type NachaReturnedEntry = NachaReturn | NachaChangeNotice;

interface OpenBatch {
  secCode: string;
  totals: Totals & { creditMinor: number };
}

interface OpenEntry {
  line: number;
  secCode: string;
  record: string;
}

/** A YYMMDD field as a date in 2000-2099; undefined when blank or not a date. */
function dateOfYymmdd(field: string): PlainDate | undefined {
  if (!/^\d{6}$/.test(field)) return undefined;
  const date = `20${field.slice(0, 2)}-${field.slice(2, 4)}-${field.slice(4, 6)}`;
  return isPlainDate(date) ? date : undefined;
}

/**
 * The returns and notifications of change in a NACHA return file, one result per returned entry in file order.
 * Refuses, with a ValidationError (code bank_file_unreadable, field `document`) whose message names the line, a
 * record that is not 94 characters, records out of order, an entry without a 99 or 98 addenda, and batch or file
 * controls whose counts, entry hash or totals disagree with the entries. Block count and padding are not checked:
 * banks differ in whether they pad what they send back.
 */
export function parseNachaReturns(text: string): NachaReturnedEntry[] {
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const state: ReturnFileState = {
    results: [],
    file: { entryAndAddendaCount: 0, entryHash: 0, debitMinor: 0, creditMinor: 0, batchCount: 0 },
    batch: undefined,
    entry: undefined,
    fileControlSeen: false,
  };
  lines.forEach((record, i) => readRecord(state, record, i + 1));
  if (!state.fileControlSeen) throw fail(lines.length, 'the file has no file control (9) record');
  return state.results;
}

/** What reading the file has gathered so far: the returned entries, the totals, the batch and entry still open. */
interface ReturnFileState {
  results: NachaReturnedEntry[];
  file: Totals & { creditMinor: number; batchCount: number };
  batch: OpenBatch | undefined;
  entry: OpenEntry | undefined;
  fileControlSeen: boolean;
}

const fail = (line: number, message: string) => unreadableFile('document', `line ${line}: ${message}`);

function digits(line: number, field: string, name: string): number {
  if (!/^\d+$/.test(field)) throw fail(line, `${name} must be digits, not ${JSON.stringify(field)}`);
  return Number(field);
}

function checkTotal(line: number, what: string, found: number, expected: number): void {
  if (found !== expected) throw fail(line, `${what} is ${found} but the entries give ${expected}`);
}

function expectNoOpenEntry(state: ReturnFileState, line: number): void {
  if (state.entry) {
    throw fail(line, `the entry on line ${state.entry.line} has no return (99) or change (98) addenda`);
  }
}

function readRecord(state: ReturnFileState, record: string, n: number): void {
  if (record.length !== RECORD_LENGTH) {
    throw fail(n, `a record must be ${RECORD_LENGTH} characters, not ${record.length}`);
  }
  const type = record[0];
  if (n === 1 && type !== '1') throw fail(n, 'the file must start with a file header (1) record');
  if (state.fileControlSeen) {
    if (record !== '9'.repeat(RECORD_LENGTH)) throw fail(n, 'only padding may follow the file control');
    return;
  }
  switch (type) {
    case '1':
      if (n !== 1) throw fail(n, 'a file header (1) record must be the first line');
      return;
    case '5':
      return openBatch(state, record, n);
    case '6':
      return readEntryDetail(state, record, n);
    case '7':
      return readAddenda(state, record, n);
    case '8':
      return closeBatch(state, record, n);
    case '9':
      return readFileControl(state, record, n);
    default:
      throw fail(n, `unknown record type ${JSON.stringify(type)}`);
  }
}

function openBatch(state: ReturnFileState, record: string, n: number): void {
  expectNoOpenEntry(state, n);
  if (state.batch) throw fail(n, 'a batch header (5) inside a batch that has no control (8)');
  state.batch = {
    secCode: record.slice(50, 53),
    totals: { entryAndAddendaCount: 0, entryHash: 0, debitMinor: 0, creditMinor: 0 },
  };
}

/** Counts the entry in its batch's totals and holds it open until its addenda. */
function readEntryDetail(state: ReturnFileState, record: string, n: number): void {
  const { batch } = state;
  if (!batch) throw fail(n, 'an entry detail (6) outside a batch');
  expectNoOpenEntry(state, n);
  const amount = digits(n, record.slice(29, 39), 'the amount');
  const transactionCode = record.slice(1, 3);
  // The second digit of the transaction code: 1-4 credit, 5-9 debit (returns of debits are 26 and 36).
  if (/^[1-4]$/.test(transactionCode[1]!)) {
    batch.totals.creditMinor = addMinor(batch.totals.creditMinor, amount);
  } else {
    batch.totals.debitMinor = addMinor(batch.totals.debitMinor, amount);
  }
  batch.totals.entryAndAddendaCount += 1;
  batch.totals.entryHash =
    (batch.totals.entryHash + digits(n, record.slice(3, 11), 'the receiving DFI identification')) %
    ENTRY_HASH_MODULUS;
  if (record[78] !== '1') throw fail(n, 'the entry has no addenda, so no return reason');
  state.entry = { line: n, secCode: batch.secCode, record };
}

function readAddenda(state: ReturnFileState, record: string, n: number): void {
  const { batch, entry } = state;
  if (!batch || !entry) throw fail(n, 'an addenda (7) record that follows no entry detail (6)');
  batch.totals.entryAndAddendaCount += 1;
  state.results.push(returnedEntry(entry, record, n, fail));
  state.entry = undefined;
}

/** Checks the batch control against the batch's entries and adds the batch to the file's totals. */
function closeBatch(state: ReturnFileState, record: string, n: number): void {
  const { batch, file } = state;
  if (!batch) throw fail(n, 'a batch control (8) outside a batch');
  expectNoOpenEntry(state, n);
  const { totals } = batch;
  checkTotal(
    n,
    'the entry/addenda count',
    digits(n, record.slice(4, 10), 'the count'),
    totals.entryAndAddendaCount,
  );
  checkTotal(n, 'the entry hash', digits(n, record.slice(10, 20), 'the entry hash'), totals.entryHash);
  checkTotal(n, 'the total debit', digits(n, record.slice(20, 32), 'the total debit'), totals.debitMinor);
  checkTotal(n, 'the total credit', digits(n, record.slice(32, 44), 'the total credit'), totals.creditMinor);
  file.batchCount += 1;
  file.entryAndAddendaCount += totals.entryAndAddendaCount;
  file.entryHash = (file.entryHash + totals.entryHash) % ENTRY_HASH_MODULUS;
  file.debitMinor = addMinor(file.debitMinor, totals.debitMinor);
  file.creditMinor = addMinor(file.creditMinor, totals.creditMinor);
  state.batch = undefined;
}

function readFileControl(state: ReturnFileState, record: string, n: number): void {
  const { file } = state;
  if (state.batch) throw fail(n, 'the file control (9) inside a batch that has no control (8)');
  checkTotal(n, 'the batch count', digits(n, record.slice(1, 7), 'the batch count'), file.batchCount);
  checkTotal(
    n,
    'the entry/addenda count',
    digits(n, record.slice(13, 21), 'the count'),
    file.entryAndAddendaCount,
  );
  checkTotal(n, 'the entry hash', digits(n, record.slice(21, 31), 'the entry hash'), file.entryHash);
  checkTotal(n, 'the total debit', digits(n, record.slice(31, 43), 'the total debit'), file.debitMinor);
  checkTotal(n, 'the total credit', digits(n, record.slice(43, 55), 'the total credit'), file.creditMinor);
  state.fileControlSeen = true;
}

function returnedEntry(
  entry: OpenEntry,
  addenda: string,
  line: number,
  fail: (line: number, message: string) => Error,
): NachaReturnedEntry {
  const { record } = entry;
  const base: ReturnedEntryBase = {
    line: entry.line,
    secCode: entry.secCode,
    transactionCode: record.slice(1, 3),
    routingNumber: record.slice(3, 12),
    accountNumber: record.slice(12, 29).trim(),
    amountMinor: Number(record.slice(29, 39)),
    individualId: record.slice(39, 54).trim(),
    name: record.slice(54, 76).trim(),
    originalTraceNumber: addenda.slice(6, 21),
    originalReceivingDfi: addenda.slice(27, 35),
    traceNumber: addenda.slice(79, 94),
  };
  const addendaType = addenda.slice(1, 3);
  if (addendaType === '99') {
    const code = addenda.slice(3, 6);
    if (!/^R\d{2}$/.test(code)) {
      throw fail(line, `the return reason code ${JSON.stringify(code)} is not R and two digits`);
    }
    return {
      ...base,
      kind: 'return',
      returnReasonCode: code,
      reason: achReason(code),
      dateOfDeath: dateOfYymmdd(addenda.slice(21, 27)),
      addendaInformation: addenda.slice(35, 79).trim(),
    };
  }
  if (addendaType === '98') {
    return {
      ...base,
      kind: 'notification_of_change',
      changeCode: addenda.slice(3, 6),
      correctedData: addenda.slice(35, 64).trim(),
    };
  }
  throw fail(line, `addenda type ${addendaType} is neither a return (99) nor a notification of change (98)`);
}
