import { describe, expect, it } from 'vitest';
import { batch, entry, file, refusal } from './bankFiles.fixtures.ts';
import { buildNachaDebitFile } from './nacha.ts';
import { parseNachaReturns } from './nachaReturns.ts';

/**
 * A return file as an ODFI sends one back: a PPD batch returning two debits, 1001 for insufficient funds (R01)
 * and 1002 for no account (R03), and a COR batch with a notification of change for 1003 (C01, a new account
 * number). Batch 1 control: 4 records, hash 11000000 + 12210527 = 23210527, debits 19.99 + 1234567.89; the return
 * codes 26 and 36 count as debits.
 */
const RETURN_FILE = [
  '101 02100002112345678902503060800A094101ACME BILLING INC       JPMORGAN CHASE                 ',
  '5225ACME BILLING                        1234567890PPDSUBSCRIPT       2503040631021000020000001',
  '626110000000000123456789     00000019991001           JOSE MULLER             1110000000000017',
  '799R01021000020000001      11000000                                            110000000000017',
  '636122105278987654321        01234567891002           ZOE + CO                1122105270000004',
  '799R03021000020000002      12210527NO ACCOUNT/UNABLE TO LOCATE                 122105270000004',
  '822500000400232105270001234587880000000000001234567890                         021000020000001',
  '5225ACME BILLING                        1234567890CORSUBSCRIPT       2503040631021000020000002',
  '62601140153355555            00000000001003           WIDGETS LLC             1011401530000009',
  '798C01021000020000003      01140153555550001                                   011401530000009',
  '822500000200011401530000000000000000000000001234567890                         021000020000002',
  '9000002000002000000060024350680000123458788000000000000                                       ',
  ...Array<string>(8).fill('9'.repeat(94)),
];

describe('parseNachaReturns', () => {
  it('reads each returned entry: the original trace number, our payment id and the reason', () => {
    const results = parseNachaReturns(RETURN_FILE.join('\n'));
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual({
      kind: 'return',
      line: 3,
      secCode: 'PPD',
      transactionCode: '26',
      routingNumber: '110000000',
      accountNumber: '000123456789',
      amountMinor: 1999,
      individualId: '1001',
      name: 'JOSE MULLER',
      originalTraceNumber: '021000020000001',
      originalReceivingDfi: '11000000',
      traceNumber: '110000000000017',
      returnReasonCode: 'R01',
      reason: { reason: 'insufficient_funds', retryable: true },
      dateOfDeath: undefined,
      addendaInformation: '',
    });
    expect(results[1]).toMatchObject({
      kind: 'return',
      line: 5,
      transactionCode: '36',
      amountMinor: 123_456_789,
      individualId: '1002',
      originalTraceNumber: '021000020000002',
      returnReasonCode: 'R03',
      reason: { reason: 'invalid_account', retryable: false },
      addendaInformation: 'NO ACCOUNT/UNABLE TO LOCATE',
    });
  });

  it('reads a notification of change with its corrected data', () => {
    expect(parseNachaReturns(RETURN_FILE.join('\n'))[2]).toMatchObject({
      kind: 'notification_of_change',
      line: 9,
      secCode: 'COR',
      individualId: '1003',
      amountMinor: 0,
      originalTraceNumber: '021000020000003',
      changeCode: 'C01',
      correctedData: '555550001',
    });
  });

  it('reads CRLF line ends, a final newline and a file without padding alike', () => {
    const expected = parseNachaReturns(RETURN_FILE.join('\n'));
    expect(parseNachaReturns(`${RETURN_FILE.join('\r\n')}\r\n`)).toEqual(expected);
    expect(parseNachaReturns(RETURN_FILE.slice(0, 12).join('\n'))).toEqual(expected);
  });

  it('reads the date of death of an R14 return', () => {
    const lines = [...RETURN_FILE];
    lines[3] = lines[3]!.replace('R01021000020000001      ', 'R14021000020000001250227');
    const [first] = parseNachaReturns(lines.join('\n'));
    expect(first).toMatchObject({
      returnReasonCode: 'R14',
      dateOfDeath: '2025-02-27',
      reason: { reason: 'deceased' },
    });
  });

  it.each([
    [
      'a short record',
      (l: string[]) => (l[4] = l[4]!.slice(0, 93)),
      'line 5: a record must be 94 characters, not 93',
    ],
    [
      'a batch total that disagrees',
      (l: string[]) => (l[6] = l[6]!.replace('000123458788', '000123458789')),
      'line 7: the total debit is 123458789 but the entries give 123458788',
    ],
    [
      'an entry hash that disagrees',
      (l: string[]) => (l[11] = l[11]!.replace('0024350680', '0024350681')),
      'line 12: the entry hash is 24350681 but the entries give 24350680',
    ],
    [
      'an entry whose return addenda is missing',
      (l: string[]) => l.splice(3, 1),
      'line 4: the entry on line 3 has no return (99) or change (98) addenda',
    ],
    [
      'an addenda that is neither return nor change',
      (l: string[]) => (l[3] = `705${l[3]!.slice(3)}`),
      'line 4: addenda type 05 is neither a return (99) nor a notification of change (98)',
    ],
    [
      'a file that does not start with a header',
      (l: string[]) => l.shift(),
      'line 1: the file must start with a file header (1) record',
    ],
    [
      'a file cut before its control',
      (l: string[]) => l.splice(11),
      'line 11: the file has no file control (9) record',
    ],
  ])('refuses %s, naming the line', (_, change, message) => {
    const lines = [...RETURN_FILE];
    change(lines);
    const error = refusal(() => parseNachaReturns(lines.join('\n')));
    expect(error.code).toBe('bank_file_unreadable');
    expect(error.fields).toEqual([{ field: 'document', message }]);
  });

  it('reads a debit file of our own as far as its first entry, which carries no return', () => {
    const built = buildNachaDebitFile(file([batch([entry()])]));
    expect(refusal(() => parseNachaReturns(built)).message).toBe(
      'document: line 3: the entry has no addenda, so no return reason',
    );
  });
});
