import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  batch,
  calculate,
  entry,
  expectWellFormed,
  file,
  nacha,
  records,
  refusal,
} from './bankFiles.fixtures.ts';
import type { ParsedControl } from './bankFiles.fixtures.ts';
import { buildNachaDebitFile, toNachaText } from './nacha.ts';

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
