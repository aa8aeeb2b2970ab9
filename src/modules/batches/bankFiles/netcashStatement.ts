import type { PlainDate } from '../../../core/calendar.ts';
import { isPlainDate, unreadableFile } from './fields.ts';
import { saEftReason } from '../../collections/index.ts';
import type { ReasonMapping } from '../../collections/index.ts';

/**
 * Netcash's daily statement (docs/bank-files.md, "Netcash statement: `parseNetcashStatement`"): a tab-delimited
 * file, one transaction a line (date, type, id, description, amount in cents, sign, VAT, Extra 1-3, ledger), on its
 * own or wrapped in the bulk statement's file and statement header and footer records. Pure.
 */

/** Statement transaction types of debit orders: a two-day (dated) or same-day collection, and its unpaid. */
export const NETCASH_DEBIT_TYPES = ['TDD', 'SDD'] as const;
export const NETCASH_UNPAID_TYPE = 'DRU';

export interface NetcashStatementEntry {
  /** The 1-based line of the file. */
  line: number;
  transactionDate: PlainDate;
  /** Netcash's three-letter transaction type: TDD, SDD, DRU, NSF, OBL... */
  type: string;
  transactionId: string;
  description: string;
  /** In cents, always positive; `sign` says which way it went. */
  amountMinor: number;
  sign: '+' | '-';
  vatMinor: number;
  /** The user-defined fields the upload carried (Extra 1 is our line reference). */
  extra1: string;
  extra2: string;
  extra3: string;
  /** The bank's unpaid code of a DRU entry (`02`), read from its description; null for any other entry. */
  unpaidCode: string | null;
  /** The unpaid code in our taxonomy; null for any other entry. */
  reason: ReasonMapping | null;
}

/** The bulk statement's wrapping records: file header and statement header, and their footers. */
const WRAPPER = /^(FH|SH|SF|FF)$/;
const UNPAID_CODE = /code\s*:?\s*(\d{1,3})\b/i;

const dateOf = (text: string): string => `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;

/** Two-digit SA codes: Netcash's table writes 2 where the bank's writes 02. */
const asTwoDigits = (code: string): string => (code.length === 1 ? `0${code}` : code);

function entryOf(fields: readonly string[], line: number): NetcashStatementEntry {
  const where = `line ${line}`;
  if (fields.length < 7) {
    throw unreadableFile(
      'document',
      `${where}: a statement entry has at least 7 fields, not ${fields.length}`,
    );
  }
  // A control character inside a field is a line break the split did not take (a file of another system's line
  // ends): the entry would swallow the next ones, so the file is refused rather than read short.
  const broken = fields.findIndex((field) => /\p{Cc}/u.test(field));
  if (broken >= 0) {
    throw unreadableFile('document', `${where}: field ${broken + 1} holds a control character`);
  }
  const [date, type, id, description, amount, sign, vat] = fields.map((field) => field.trim());
  const transactionDate = /^\d{8}$/.test(date!) ? dateOf(date!) : '';
  if (!isPlainDate(transactionDate)) throw unreadableFile('document', `${where}: the date is not CCYYMMDD`);
  if (!/^[A-Z]{3}$/.test(type!))
    throw unreadableFile('document', `${where}: the transaction type is not 3 letters`);
  if (!/^\d+$/.test(amount!)) throw unreadableFile('document', `${where}: the amount is not whole cents`);
  if (sign !== '+' && sign !== '-') throw unreadableFile('document', `${where}: the sign is not + or -`);
  if (!/^\d*$/.test(vat!)) throw unreadableFile('document', `${where}: the VAT is not whole cents`);
  const amountMinor = Number(amount);
  if (!Number.isSafeInteger(amountMinor))
    throw unreadableFile('document', `${where}: the amount is too large`);
  let unpaidCode: string | null = null;
  if (type === NETCASH_UNPAID_TYPE) {
    const code = UNPAID_CODE.exec(description!);
    if (!code) throw unreadableFile('document', `${where}: an unpaid without its code in the description`);
    unpaidCode = asTwoDigits(code[1]!);
  }
  return {
    line,
    transactionDate,
    type: type!,
    transactionId: id!,
    description: description!,
    amountMinor,
    sign,
    vatMinor: Number(vat || '0'),
    extra1: (fields[7] ?? '').trim(),
    extra2: (fields[8] ?? '').trim(),
    extra3: (fields[9] ?? '').trim(),
    unpaidCode,
    reason: unpaidCode === null ? null : saEftReason(unpaidCode),
  };
}

/**
 * Every transaction entry of a Netcash statement, in file order. Lines may end in CRLF, LF or CR alone (a file
 * saved on another system). A file with no entry, or a line that is neither an entry nor a bulk statement's wrapping
 * record, throws `bank_file_unreadable` naming `document` and the line: the caller applies nothing then.
 */
export function parseNetcashStatement(text: string): NetcashStatementEntry[] {
  const entries: NetcashStatementEntry[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    const fields = raw.split('\t');
    if (WRAPPER.test(fields[0]!.trim())) return;
    entries.push(entryOf(fields, index + 1));
  });
  if (entries.length === 0) throw unreadableFile('document', 'is not a Netcash statement: it has no entries');
  return entries;
}
