import { describe, expect, it } from 'vitest';
import { netcashStatementReports } from './netcashBatchFile.ts';

/** A statement entry as Netcash writes it: date, type, id, description, cents, sign, VAT, Extra 1-3, ledger. */
const entry = (
  type: string,
  cents: number,
  sign: '+' | '-',
  extra1: string,
  description = 'Dated debit order',
) => ['20260112', type, '70001', description, String(cents), sign, '0', extra1, '', '', 'Debtors'].join('\t');
const unpaid = (cents: number, sign: '+' | '-', extra1: string) =>
  entry('DRU', cents, sign, extra1, 'Debit order unpaid - Code: 02');

/** The batch's lines: payment 1001 of R100.00, 1002 of R349.50. */
const LINES = new Map([
  ['1001', 100_00],
  ['1002', 349_50],
]);

const reportsOf = (...entries: string[]) => netcashStatementReports(entries.join('\r\n'), LINES);

describe('netcashStatementReports', () => {
  it("reads a collection of the line's amount as paid and an unpaid of it as unpaid", () => {
    expect(reportsOf(entry('TDD', 100_00, '+', '1001'), unpaid(349_50, '-', '1002'))).toEqual([
      { lineRef: '1001', outcome: 'paid', code: null },
      { lineRef: '1002', outcome: 'unpaid', code: '02' },
    ]);
  });

  it('lets an unpaid outweigh a collection of the same line in the same statement', () => {
    expect(reportsOf(entry('SDD', 100_00, '+', '1001'), unpaid(100_00, '-', '1001'))).toEqual([
      { lineRef: '1001', outcome: 'unpaid', code: '02' },
    ]);
  });

  it('reports an unpaid of another amount or sign as mismatched, naming its line, and does not apply it', () => {
    // The trial's case: an unpaid of R0.01 against a debit of R100.00 must not reverse it.
    expect(
      reportsOf(entry('TDD', 100_00, '+', '1001'), unpaid(1, '-', '1001'), unpaid(349_50, '+', '1002')),
    ).toEqual([
      { lineRef: '1001', outcome: 'paid', code: null },
      {
        lineRef: '1001',
        outcome: 'mismatched',
        entryLine: 2,
        reason: 'an unpaid (DRU) of -R0.01 does not match the debit of R100.00: it must be -R100.00',
      },
      {
        lineRef: '1002',
        outcome: 'mismatched',
        entryLine: 3,
        reason: 'an unpaid (DRU) of +R349.50 does not match the debit of R349.50: it must be -R349.50',
      },
    ]);
  });

  it('reports a collection of another amount or sign as mismatched too', () => {
    expect(reportsOf(entry('TDD', 99_99, '+', '1001'), entry('TDD', 349_50, '-', '1002'))).toEqual([
      expect.objectContaining({ lineRef: '1001', outcome: 'mismatched', entryLine: 1 }),
      expect.objectContaining({
        lineRef: '1002',
        outcome: 'mismatched',
        reason: 'a collection (TDD) of -R349.50 does not match the debit of R349.50: it must be +R349.50',
      }),
    ]);
  });

  it("leaves alone entries about no line of the batch and entries that are not a debit's", () => {
    expect(
      reportsOf(
        entry('OBL', 0, '+', ''),
        unpaid(500, '-', '999999'),
        entry('NSF', 350, '-', '1001', 'Service fee'),
        entry('TDD', 100_00, '+', '1001'),
      ),
    ).toEqual([{ lineRef: '1001', outcome: 'paid', code: null }]);
  });
});
