import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../errors.ts';
import { parseNetcashStatement } from './netcashStatement.ts';

/** One statement entry as Netcash's layout writes it: date, type, id, description, cents, sign, VAT, Extra 1-3. */
const entry = (type: string, id: string, description: string, cents: number, sign: '+' | '-', extra1 = '') =>
  ['20261203', type, id, description, String(cents), sign, '0', extra1, '', '', 'Debtors'].join('\t');

/**
 * Every SA unpaid code Netcash's table and the Bankserv EF70 schedule list (docs/bank-files.md, "Netcash
 * statement: `parseNetcashStatement`"), each with the reason it maps to.
 */
const UNPAID_CODES: readonly [string, string][] = [
  ['02', 'insufficient_funds'],
  ['03', 'debits_not_allowed'],
  ['04', 'payment_stopped'],
  ['06', 'account_frozen'],
  ['08', 'legal'],
  ['10', 'legal'],
  ['12', 'account_closed'],
  ['14', 'account_closed'],
  ['16', 'account_closed'],
  ['18', 'deceased'],
  ['22', 'uncleared_funds'],
  ['26', 'invalid_account'],
  ['28', 'disputed'],
  ['30', 'unauthorised'],
  ['32', 'disputed'],
  ['34', 'authorisation_revoked'],
  ['36', 'payment_stopped'],
  ['56', 'legal'],
  ['60', 'consecutive_unpaids'],
];

function unreadable(text: string): ValidationError {
  try {
    parseNetcashStatement(text);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('the parser took the file');
}

describe('parseNetcashStatement', () => {
  it('reads every field of an entry: date, type, id, description, cents, sign, VAT, Extra 1-3', () => {
    const [paid] = parseNetcashStatement(entry('TDD', '5551', 'Dated debit order', 34950, '+', '1001'));
    expect(paid).toEqual({
      line: 1,
      transactionDate: '2026-12-03',
      type: 'TDD',
      transactionId: '5551',
      description: 'Dated debit order',
      amountMinor: 34950,
      sign: '+',
      vatMinor: 0,
      extra1: '1001',
      extra2: '',
      extra3: '',
      unpaidCode: null,
      reason: null,
    });
  });

  it('reads a day with balances, a collection, an unpaid and a fee, in file order', () => {
    const statement = [
      entry('OBL', '0', 'Opening Balance', 0, '+'),
      entry('TDD', '5551', 'Dated debit order', 34950, '+', '1001'),
      entry('DRU', '5552', 'Debit order unpaid - Code: 02', 5000, '-', '1002'),
      entry('NSF', '5553', 'Service fee', 350, '-'),
      entry('CBL', '0', 'Closing Balance', 29600, '+'),
    ].join('\r\n');
    const entries = parseNetcashStatement(statement);
    expect(entries.map((e) => [e.type, e.extra1, e.unpaidCode])).toEqual([
      ['OBL', '', null],
      ['TDD', '1001', null],
      ['DRU', '1002', '02'],
      ['NSF', '', null],
      ['CBL', '', null],
    ]);
    expect(entries[2]!.reason).toEqual({ reason: 'insufficient_funds', retryable: true });
  });

  it.each(UNPAID_CODES)('maps unpaid code %s to %s', (code, reason) => {
    const [unpaid] = parseNetcashStatement(
      entry('DRU', '9', `Debit order unpaid - Code: ${code}`, 100, '-', '1002'),
    );
    expect(unpaid!.unpaidCode).toBe(code);
    expect(unpaid!.reason!.reason).toBe(reason);
  });

  it("reads Netcash's one-digit codes (2) and a code written without spaces (-Code:04)", () => {
    const entries = parseNetcashStatement(
      [
        entry('DRU', '1', 'Debit order unpaid - Code: 2', 100, '-', 'a'),
        entry('DRU', '2', 'Debit order unpaid -Code:04', 100, '-', 'b'),
      ].join('\n'),
    );
    expect(entries.map((e) => e.unpaidCode)).toEqual(['02', '04']);
  });

  it("skips a bulk statement's file and statement headers and footers", () => {
    const bulk = [
      'FH\t20261203\t24ade73c-98cf-47b3-99be-cc7b867b3080',
      'SH\t20261203\t51234567890\tc74e1f25-5499-4663-85fb-2a6b1c0fb9ef',
      entry('SDD', '7', 'Same day debit order', 100, '+', '1001'),
      'SF\t1',
      'FF\t1',
    ].join('\n');
    expect(parseNetcashStatement(bulk).map((e) => [e.line, e.type])).toEqual([[3, 'SDD']]);
  });

  it('refuses what is not a statement, naming document and the line', () => {
    expect(unreadable('').message).toMatch(/no entries/);
    expect(unreadable('<xml/>').fields[0]!.field).toBe('document');
    expect(unreadable(entry('TDD', '1', 'x', 100, '+').replace('20261203', '2026-12-03')).message).toMatch(
      /line 1: the date is not CCYYMMDD/,
    );
    expect(unreadable(entry('TDD', '1', 'x', 100, '+').replace('\t100\t', '\t1.00\t')).message).toMatch(
      /whole cents/,
    );
    expect(unreadable(`\n${entry('DRU', '1', 'Debit order unpaid', 100, '-')}`).message).toMatch(
      /line 2: an unpaid without its code/,
    );
    expect(unreadable(entry('TDD', '1', 'x', 100, '+').replace('\t+\t', '\tplus\t')).code).toBe(
      'bank_file_unreadable',
    );
  });

  it('reads lines ended by CRLF, LF or CR alone, and a mix of them, alike', () => {
    const lines = [
      entry('OBL', '0', 'Opening Balance', 0, '+'),
      entry('TDD', '5551', 'Dated debit order', 34950, '+', '1001'),
      entry('DRU', '5552', 'Debit order unpaid - Code: 02', 5000, '-', '1002'),
    ];
    const read = (text: string) => parseNetcashStatement(text).map((e) => [e.line, e.type, e.extra1]);
    const expected = [
      [1, 'OBL', ''],
      [2, 'TDD', '1001'],
      [3, 'DRU', '1002'],
    ];
    for (const end of ['\r\n', '\n', '\r'])
      expect(read(lines.join(end) + end), JSON.stringify(end)).toEqual(expected);
    expect(read(`${lines[0]}\r${lines[1]}\n${lines[2]}\r\n`)).toEqual(expected);
  });

  it('refuses an entry holding a control character, naming its line and field', () => {
    const error = unreadable(
      [entry('OBL', '0', 'Opening', 0, '+'), entry('TDD', '1', 'x\u000b', 100, '+', '7')].join('\n'),
    );
    expect(error.code).toBe('bank_file_unreadable');
    expect(error.fields).toEqual([
      { field: 'document', message: 'line 2: field 4 holds a control character' },
    ]);
  });
});
