import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors.ts';
import { parseNachaReturns } from './nachaReturns.ts';
import {
  buildNachaDebitFile,
  toNachaText,
  type NachaDebitBatch,
  type NachaDebitEntry,
  type NachaDebitFileInput,
} from './nacha.ts';

/**
 * @midlandsbank/node-nacha, an independent NACHA parser (CommonJS, untyped): the shapes it returns, as far as
 * these tests read them.
 */
interface ParsedControl {
  batchCount?: number;
  blockCount?: number;
  entryAndAddendaCount: number;
  entryHash: number;
  totalDebit: number;
  totalCredit: number;
}
interface ParsedEntry {
  transactionCode: string;
  receivingDFIIdentification: number;
  checkDigit: number;
  dfiAccount: string;
  amount: number;
  identificationNumber: string;
  receivingCompanyName: string;
  addendaIndicator: string;
  traceNumber: number;
  addenda?: { type: string; info: string; num: number; entryNum: number };
}
interface ParsedBatch {
  serviceClassCode: number;
  companyName: string;
  companyId: string;
  entryClassCode: string;
  description: string;
  effectiveDate: string;
  originatorStatusCode: string;
  originatingDFIIdentification: string;
  num: number;
  entries: ParsedEntry[];
  footer: ParsedControl & { companyId: string; originatingDFIIdentification: string; num: number };
}
interface ParsedFile {
  file: {
    priority: number;
    destination: string;
    origin: string;
    creationDate: string;
    creationTime: string;
    idModifier: string;
    recordSize: string;
    blockingFactor: string;
    formatCode: string;
    destinationName: string;
    originName: string;
    referenceCode: string;
    footer: ParsedControl;
  };
  batches: ParsedBatch[];
}

const require = createRequire(import.meta.url);
const nacha = require('@midlandsbank/node-nacha') as {
  from(source: string | ParsedFile): { data: ParsedFile; to(format: 'ach'): string };
};
/** The library's own arithmetic for batch and file controls, run over the entries it parsed. */
const calculate = require('@midlandsbank/node-nacha/lib/api/calculate') as (options: {
  ach: ParsedFile;
  set: boolean;
}) => { footer: ParsedControl & { lineCount: number }; batchFooters: ParsedControl[] };

function entry(overrides: Partial<NachaDebitEntry> = {}): NachaDebitEntry {
  return {
    id: '1001',
    amountMinor: 1999,
    currency: 'USD',
    routingNumber: '110000000',
    accountNumber: '000123456789',
    accountType: 'checking',
    name: 'José Müller',
    ...overrides,
  };
}

function batch(entries: NachaDebitEntry[], overrides: Partial<NachaDebitBatch> = {}): NachaDebitBatch {
  return {
    secCode: 'PPD',
    companyName: 'Acme Billing',
    companyIdentification: '1234567890',
    entryDescription: 'Subscript',
    effectiveEntryDate: '2025-03-04',
    originatingDfi: '021000021',
    entries,
    ...overrides,
  };
}

function file(batches: NachaDebitBatch[], overrides: Partial<NachaDebitFileInput> = {}): NachaDebitFileInput {
  return {
    immediateDestination: '021000021',
    immediateDestinationName: 'JPMorgan Chase',
    immediateOrigin: '1234567890',
    immediateOriginName: 'Acme Billing Inc',
    createdAt: '2025-03-03T21:45:00Z',
    batches,
    ...overrides,
  };
}

function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

function records(text: string): string[] {
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

/** The checks of our own on any built file: record width, blocking, and padding only after the file control. */
function expectWellFormed(text: string): void {
  const lines = records(text);
  for (const line of lines) expect(line).toHaveLength(94);
  expect(lines.length % 10).toBe(0);
  const control = lines.findIndex((line) => line.startsWith('9') && line !== '9'.repeat(94));
  expect(lines.slice(control + 1).every((line) => line === '9'.repeat(94))).toBe(true);
  expect(Number(lines[control]!.slice(7, 13))).toBe(lines.length / 10);
}

describe('buildNachaDebitFile', () => {
  const input = file([
    batch([
      entry({ addenda: 'Invoice INV-1001 March' }),
      entry({
        id: '1002',
        amountMinor: 123_456_789,
        routingNumber: '122105278',
        accountNumber: '9876 5432 1',
        accountType: 'savings',
        name: 'Zoë & Co',
      }),
    ]),
    batch(
      [
        entry({
          id: '1003',
          amountMinor: 1,
          routingNumber: '011401533',
          accountNumber: '55555',
          name: 'Widgets LLC',
        }),
      ],
      {
        secCode: 'CCD',
      },
    ),
  ]);
  const text = buildNachaDebitFile(input);

  it('writes 94-character records, padded with 9s to a multiple of 10', () => {
    expectWellFormed(text);
    // 1 + (5, 6, 7, 6, 8) + (5, 6, 8) + 9 = 10 records: no padding needed.
    expect(records(text)).toHaveLength(10);
    const three = buildNachaDebitFile(file([batch([entry()])]));
    expectWellFormed(three);
    // 1, 5, 6, 8, 9 and five padding records.
    expect(records(three).slice(5)).toEqual(Array(5).fill('9'.repeat(94)));
  });

  it('builds a file the node-nacha parser reads back entry for entry', () => {
    const parsed = nacha.from(text).data;
    expect(parsed.file).toMatchObject({
      priority: 1,
      destination: ' 021000021',
      origin: '1234567890',
      creationDate: '250303',
      creationTime: '2145',
      idModifier: 'A',
      recordSize: '094',
      blockingFactor: '10',
      formatCode: '1',
      destinationName: 'JPMORGAN CHASE',
      originName: 'ACME BILLING INC',
    });
    expect(
      parsed.batches.map((b) => [
        b.serviceClassCode,
        b.entryClassCode,
        b.companyName,
        b.companyId,
        b.description,
      ]),
    ).toEqual([
      [225, 'PPD', 'ACME BILLING', '1234567890', 'SUBSCRIPT'],
      [225, 'CCD', 'ACME BILLING', '1234567890', 'SUBSCRIPT'],
    ]);
    expect(parsed.batches.map((b) => [b.effectiveDate, b.originatingDFIIdentification, b.num])).toEqual([
      ['250304', '02100002', 1],
      ['250304', '02100002', 2],
    ]);
    const entries = parsed.batches.flatMap((b) => b.entries);
    expect(
      entries.map((e) => ({
        code: e.transactionCode,
        routing: `${String(e.receivingDFIIdentification).padStart(8, '0')}${e.checkDigit}`,
        account: e.dfiAccount,
        amount: e.amount,
        id: e.identificationNumber,
        name: e.receivingCompanyName,
        trace: e.traceNumber,
        addenda: e.addenda && [e.addenda.type, e.addenda.info, e.addenda.num, e.addenda.entryNum],
      })),
    ).toEqual([
      {
        code: '27',
        routing: '110000000',
        account: '000123456789',
        amount: 1999,
        id: '1001',
        name: 'JOSE MULLER',
        trace: 21000020000001,
        addenda: ['05', 'INVOICE INV-1001 MARCH', 1, 1],
      },
      {
        code: '37',
        routing: '122105278',
        account: '987654321',
        amount: 123_456_789,
        id: '1002',
        name: 'ZOE & CO',
        trace: 21000020000002,
        addenda: undefined,
      },
      {
        code: '27',
        routing: '011401533',
        account: '55555',
        amount: 1,
        id: '1003',
        name: 'WIDGETS LLC',
        trace: 21000020000003,
        addenda: undefined,
      },
    ]);
  });

  it('writes batch and file controls that the parser reads and its own arithmetic agrees with', () => {
    const parsed = nacha.from(text).data;
    const control = (c: ParsedControl) => [c.entryAndAddendaCount, c.entryHash, c.totalDebit, c.totalCredit];
    // Batch 1: 2 entries + 1 addenda; hash 11000000 + 12210527; debits 19.99 + 1234567.89.
    // Batch 2: 1 entry; hash 01140153; debit 0.01.
    expect(parsed.batches.map((b) => control(b.footer))).toEqual([
      [3, 23_210_527, 123_458_788, 0],
      [1, 1_140_153, 1, 0],
    ]);
    expect(parsed.file.footer).toMatchObject({
      batchCount: 2,
      blockCount: 1,
      entryAndAddendaCount: 4,
      entryHash: 24_350_680,
      totalDebit: 123_458_789,
      totalCredit: 0,
    });
    const recomputed = calculate({ ach: parsed, set: false });
    expect(recomputed.batchFooters.map(control)).toEqual(parsed.batches.map((b) => control(b.footer)));
    expect(control(recomputed.footer)).toEqual(control(parsed.file.footer));
    expect(recomputed.footer.blockCount).toBe(parsed.file.footer.blockCount);
  });

  it('is written back record for record by the library from what it parsed', () => {
    // NOTE: the library pads a file that already fills its last block with ten more 9s records; compare without padding.
    const withoutPadding = (t: string) =>
      t.split('\n').filter((line) => line !== '' && line !== '9'.repeat(94));
    expect(withoutPadding(nacha.from(nacha.from(text).data).to('ach'))).toEqual(withoutPadding(text));
  });

  it('keeps the last 10 digits of an entry hash that outgrows them', () => {
    // 130 entries at routing 800000006: 130 × 80000000 = 10400000000, whose last 10 digits are 0400000000.
    const many = Array.from({ length: 130 }, (_, i) =>
      entry({ id: `P${i}`, routingNumber: '800000006', amountMinor: 100 }),
    );
    const built = buildNachaDebitFile(file([batch(many)]));
    expectWellFormed(built);
    const lines = records(built);
    const batchControl = lines.find((line) => line.startsWith('8'))!;
    expect(batchControl.slice(10, 20)).toBe('0400000000');
    const parsed = nacha.from(built).data;
    expect(parsed.file.footer).toMatchObject({
      entryAndAddendaCount: 130,
      entryHash: 400_000_000,
      totalDebit: 13_000,
    });
    expect(calculate({ ach: parsed, set: false }).footer.entryHash).toBe(400_000_000);
  });

  it('numbers trace numbers on from the given start, and writes the creation time in the given zone', () => {
    const built = buildNachaDebitFile(
      file([batch([entry(), entry({ id: '1002' })])], {
        traceSequenceStart: 41,
        createdAt: '2025-03-01T15:04:00Z',
        timeZone: 'America/New_York',
        fileIdModifier: 'B',
      }),
    );
    const parsed = nacha.from(built).data;
    expect(parsed.batches[0]!.entries.map((e) => e.traceNumber)).toEqual([21000020000041, 21000020000042]);
    expect([parsed.file.creationDate, parsed.file.creationTime, parsed.file.idModifier]).toEqual([
      '250301',
      '1004',
      'B',
    ]);
  });

  it('refuses a routing number that fails the ABA 3-7-1 check, naming the field', () => {
    const error = refusal(() => buildNachaDebitFile(file([batch([entry({ routingNumber: '110000001' })])])));
    expect(error.code).toBe('bank_file_input_invalid');
    expect(error.fields).toEqual([
      {
        field: 'batches[0].entries[0].routingNumber',
        message: 'must be a 9-digit ABA routing number with a valid check digit',
      },
    ]);
  });

  it('names every bad field at once rather than truncating anything', () => {
    const error = refusal(() =>
      buildNachaDebitFile(
        file(
          [
            batch(
              [
                entry({ id: 'P'.repeat(16), amountMinor: 10_000_000_000, currency: 'EUR' }),
                entry({ id: '1002', name: 'A'.repeat(23), accountNumber: '12', addenda: 'x'.repeat(81) }),
                entry({ id: '1002' }),
              ],
              { companyName: 'Acme Billing Company', entryDescription: '東京', originatingDfi: '123' },
            ),
            batch([], { secCode: 'WEB' as 'PPD', effectiveEntryDate: '2025-02-29' }),
          ],
          { immediateOrigin: 'ABC', createdAt: 'yesterday', timeZone: 'Mars/Olympus', fileIdModifier: 'a' },
        ),
      ),
    );
    expect(error.fields.map((problem) => problem.field)).toEqual([
      'immediateOrigin',
      'createdAt',
      'timeZone',
      'fileIdModifier',
      'batches[0].originatingDfi',
      'batches[0].entries[0].id',
      'batches[0].entries[0].amountMinor',
      'batches[0].entries[0].currency',
      'batches[0].entries[1].accountNumber',
      'batches[0].entries[1].name',
      'batches[0].entries[1].addenda',
      'batches[0].entries[2].id',
      'batches[0].companyName',
      'batches[0].entryDescription',
      'batches[1].secCode',
      'batches[1].effectiveEntryDate',
      'batches[1].entries',
    ]);
    expect(error.message).toContain('batches[0].entries[1].name: must be at most 22 characters, not 23');
    expect(error.message).toContain('batches[0].entries[2].id: repeats batches[0].entries[1].id');
  });

  it('refuses a file with no batches', () => {
    expect(refusal(() => buildNachaDebitFile(file([]))).fields).toEqual([
      { field: 'batches', message: 'must have at least one batch' },
    ]);
  });
});

describe('toNachaText', () => {
  it.each([
    ['José Müller', 'JOSE MULLER'],
    ['Straße & Søn', 'STRASSE & SON'],
    ['  Tab\tand\nnewline ', 'TAB AND NEWLINE'],
    ['東京 Trading', 'TRADING'],
  ])('%j becomes %j', (text, expected) => {
    expect(toNachaText(text)).toBe(expected);
  });
});

/** A routing number with a valid prefix and its 3-7-1 check digit computed here. */
const routingNumber = fc
  .tuple(fc.constantFrom('01', '02', '11', '12', '21', '32', '61', '72', '80'), fc.stringMatching(/^\d{6}$/))
  .map(([prefix, rest]) => {
    const d = [...`${prefix}${rest}`].map(Number);
    const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]!);
    return `${prefix}${rest}${(10 - (sum % 10)) % 10}`;
  });

describe('buildNachaDebitFile, property', () => {
  const entryArbitrary = fc.record({
    amountMinor: fc.integer({ min: 1, max: 9_999_999_999 }),
    routingNumber,
    accountNumber: fc.stringMatching(/^\d{4,17}$/),
    accountType: fc.constantFrom('checking' as const, 'savings' as const),
    name: fc
      .string({ unit: fc.constantFrom(...'abcXYZ09 éß&-'), minLength: 1, maxLength: 10 })
      .map((s) => `N${s}`),
    addenda: fc.option(fc.stringMatching(/^[A-Z0-9][A-Z0-9 ]{0,79}$/), { nil: undefined }),
  });
  const fileArbitrary = fc
    .array(
      fc.record({
        secCode: fc.constantFrom('PPD' as const, 'CCD' as const),
        entries: fc.array(entryArbitrary, { minLength: 1, maxLength: 12 }),
      }),
      { minLength: 1, maxLength: 3 },
    )
    .map((batches) => {
      let id = 0;
      return file(
        batches.map(({ secCode, entries }) =>
          batch(
            entries.map((generated) => ({ ...generated, id: String((id += 1)), currency: 'USD' })),
            { secCode },
          ),
        ),
      );
    });

  it('any valid file reads back with the same entries, counts, entry hash and totals', () => {
    fc.assert(
      fc.property(fileArbitrary, (input) => {
        const text = buildNachaDebitFile(input);
        expectWellFormed(text);
        const parsed = nacha.from(text).data;
        const entries = input.batches.flatMap((b) => b.entries);
        expect(
          parsed.batches.flatMap((b) => b.entries.map((e) => [e.identificationNumber, e.amount])),
        ).toEqual(entries.map((e) => [e.id, e.amountMinor]));
        const hash =
          entries.reduce((sum, e) => sum + BigInt(e.routingNumber.slice(0, 8)), 0n) % 10_000_000_000n;
        const total = entries.reduce((sum, e) => sum + BigInt(e.amountMinor), 0n);
        const addenda = entries.filter((e) => e.addenda !== undefined).length;
        expect(parsed.file.footer).toMatchObject({
          batchCount: input.batches.length,
          entryAndAddendaCount: entries.length + addenda,
          entryHash: Number(hash),
          totalDebit: Number(total),
          totalCredit: 0,
        });
        const recomputed = calculate({ ach: parsed, set: false });
        expect(
          recomputed.batchFooters.map((f) => [f.entryAndAddendaCount, f.entryHash, f.totalDebit]),
        ).toEqual(
          parsed.batches.map((b) => [b.footer.entryAndAddendaCount, b.footer.entryHash, b.footer.totalDebit]),
        );
      }),
      { numRuns: 50 },
    );
  });
});

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
