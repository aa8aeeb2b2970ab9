import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../errors.ts';
import {
  buildNetcashDebitOrderFile,
  NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
  netcashLineProblems,
  toNetcashText,
} from './netcashDebitOrder.ts';
import type { NetcashDebitOrderFile } from './netcashDebitOrder.ts';

const SERVICE_KEY = 'c74e1f25-5499-4663-85fb-2a6b1c0fb9ef';

const FILE: NetcashDebitOrderFile = {
  serviceKey: SERVICE_KEY,
  softwareVendorKey: NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
  instruction: 'TwoDay',
  batchName: 'Batch 42',
  actionDate: '2026-12-01',
  lines: [
    {
      accountReference: 'PM000007',
      accountName: 'Thandi Nkosi',
      bankAccountName: 'T Nkosi',
      accountType: 'current',
      branchCode: '250655',
      bankAccountNumber: '62001234567',
      amountMinor: 34_950,
      lineRef: '1001',
    },
    {
      accountReference: 'PM000008',
      accountName: 'Pieter van Wyk',
      bankAccountName: 'Pieter van Wyk',
      accountType: 'savings',
      branchCode: '470010',
      bankAccountNumber: '1234567890',
      amountMinor: 5,
      lineRef: '1002',
    },
    {
      accountReference: 'PM000009',
      accountName: 'Zola Co',
      bankAccountName: 'Zola Co',
      accountType: 'transmission',
      branchCode: '051001',
      bankAccountNumber: '001234',
      amountMinor: 100_000_00,
      lineRef: '1003',
    },
  ],
};

/** The file split back into records and fields, as Netcash reads it: CRLF between records, tabs between fields. */
const records = (file: string) =>
  file
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) => line.split('\t'));

function refusal(input: NetcashDebitOrderFile): ValidationError {
  try {
    buildNetcashDebitOrderFile(input);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('the builder took the input');
}

describe('buildNetcashDebitOrderFile', () => {
  it('writes the whole file: H, K, one T a debit, F, tab-delimited and CRLF-terminated', () => {
    // F: 3 debits; 349.50 + 0.05 + 100 000.00 = R100 349.55 = 10 034 955 cents.
    expect(buildNetcashDebitOrderFile(FILE)).toBe(
      [
        `H\t${SERVICE_KEY}\t1\tTwoDay\tBatch 42\t20261201\t24ade73c-98cf-47b3-99be-cc7b867b3080`,
        'K\t101\t102\t131\t132\t133\t134\t136\t162\t301',
        'T\tPM000007\tThandi Nkosi\t1\tT Nkosi\t1\t250655\t62001234567\t34950\t1001',
        'T\tPM000008\tPieter van Wyk\t1\tPieter van Wyk\t2\t470010\t1234567890\t5\t1002',
        'T\tPM000009\tZola Co\t1\tZola Co\t3\t051001\t001234\t10000000\t1003',
        'F\t3\t10034955\t9999',
        '',
      ].join('\r\n'),
    );
  });

  it('header: record id, service key, version 1, instruction, batch name, CCYYMMDD action date, vendor key', () => {
    const [header] = records(buildNetcashDebitOrderFile({ ...FILE, instruction: 'Sameday' }));
    expect(header).toEqual([
      'H',
      SERVICE_KEY,
      '1',
      'Sameday',
      'Batch 42',
      '20261201',
      NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
    ]);
  });

  it('every transaction record has exactly the fields its key record names, in that order', () => {
    const [, key, ...rest] = records(buildNetcashDebitOrderFile(FILE));
    const transactions = rest.slice(0, -1);
    expect(transactions).toHaveLength(3);
    for (const record of transactions) {
      expect(record[0]).toBe('T');
      expect(record.length).toBe(key!.length);
      const byId = Object.fromEntries(key!.slice(1).map((id, at) => [id, record[at + 1]]));
      expect(byId['131']).toBe('1');
      expect(['1', '2', '3']).toContain(byId['133']);
      expect(byId['162']).toMatch(/^\d+$/);
    }
  });

  it('footer: the count of T records, their total in cents, and 9999', () => {
    const footer = records(buildNetcashDebitOrderFile(FILE)).at(-1);
    expect(footer).toEqual(['F', '3', '10034955', '9999']);
  });

  it('keeps leading zeros of branch codes and account numbers', () => {
    const t = records(buildNetcashDebitOrderFile(FILE))[4]!;
    expect(t[6]).toBe('051001');
    expect(t[7]).toBe('001234');
  });

  it('refuses bad input naming each field by its path, all at once', () => {
    const error = refusal({
      ...FILE,
      serviceKey: 'not-a-guid',
      actionDate: '2026-02-30',
      lines: [
        { ...FILE.lines[0]!, branchCode: '25065', amountMinor: 0 },
        { ...FILE.lines[1]!, bankAccountName: '東京', accountReference: 'PM1', lineRef: '1001' },
      ],
    });
    expect(error.code).toBe('bank_file_input_invalid');
    expect(error.fields.map((problem) => problem.field)).toEqual([
      'serviceKey',
      'actionDate',
      'lines[0].branchCode',
      'lines[0].amountMinor',
      'lines[1].accountReference',
      'lines[1].bankAccountName',
      'lines[1].lineRef',
    ]);
  });

  it('refuses an empty batch, an unknown account type and a fractional amount', () => {
    expect(refusal({ ...FILE, lines: [] }).fields).toEqual([
      { field: 'lines', message: 'must hold at least one debit' },
    ]);
    const error = refusal({
      ...FILE,
      lines: [
        { ...FILE.lines[0]!, accountType: 'bond' as never, amountMinor: 10.5, bankAccountNumber: '12-34' },
      ],
    });
    expect(error.fields.map((problem) => problem.field)).toEqual([
      'lines[0].accountType',
      'lines[0].bankAccountNumber',
      'lines[0].amountMinor',
    ]);
  });

  it('writes accented names in ASCII as the SEPA builder does, keys as given', () => {
    const file = buildNetcashDebitOrderFile({
      ...FILE,
      batchName: 'Bätch “März”',
      lines: [{ ...FILE.lines[0]!, accountName: 'Zoë Müller', bankAccountName: 'Zoë  Müller\tß' }],
    });
    const [header, , t] = records(file);
    expect(header![4]).toBe('Batch "Marz"');
    expect(t).toEqual([
      'T',
      'PM000007',
      'Zoe Muller',
      '1',
      'Zoe Muller ss',
      '1',
      '250655',
      '62001234567',
      '34950',
      '1001',
    ]);
    // Every byte of the file is printable ASCII, tab or CRLF.
    expect(file).toMatch(/^[\x20-\x7e\t\r\n]*$/);
  });

  it('refuses a name with nothing to write in ASCII, or too long once written, and a key that is not ASCII', () => {
    const line = FILE.lines[0]!;
    expect(netcashLineProblems({ ...line, bankAccountName: 'Дмитрий 東京' })).toEqual([
      {
        field: 'bankAccountName',
        message: 'must have a letter or digit that can be written in ASCII (accents are dropped)',
      },
    ]);
    // 25 ß are 50 characters in ASCII; 26 are 52.
    expect(netcashLineProblems({ ...line, accountName: 'ß'.repeat(25) })).toEqual([]);
    expect(netcashLineProblems({ ...line, accountName: 'ß'.repeat(26) })).toEqual([
      { field: 'accountName', message: 'must be at most 50 characters written in ASCII, not 52' },
    ]);
    expect(
      netcashLineProblems({ ...line, accountReference: 'PMö0007', lineRef: '10\t01' }).map((p) => p.field),
    ).toEqual(['accountReference', 'lineRef']);
    expect(netcashLineProblems(line)).toEqual([]);
  });
});

/**
 * The golden file (test/fixtures/README.md): a batch of Zoë Müller, as the customer typed her name, and Thandi Nkosi,
 * written by hand from Netcash's layout, CRLF and tabs kept byte for byte.
 */
const GOLDEN = new URL('../../../../test/fixtures/netcash/debit-order-transliterated.nif', import.meta.url);

describe('the golden Netcash file', () => {
  it('is what the builder writes for a holder with accents, byte for byte', () => {
    const file = buildNetcashDebitOrderFile({
      ...FILE,
      batchName: 'B42S1767225600',
      actionDate: '2026-01-14',
      lines: [
        { ...FILE.lines[0]!, accountName: 'Zoë Müller', bankAccountName: 'Zoë Müller', amountMinor: 100_00 },
        {
          ...FILE.lines[1]!,
          accountName: 'Thandi Nkosi',
          bankAccountName: 'Thandi Nkosi',
          branchCode: '051001',
          amountMinor: 349_50,
        },
      ],
    });
    expect(file).toBe(fs.readFileSync(GOLDEN, 'latin1'));
  });
});

describe('toNetcashText', () => {
  it.each([
    ['Zoë Müller', 'Zoe Muller'],
    ['Straße Ærø Łódź', 'Strasse AEro Lodz'],
    ['O’Brien – “Jnr”', 'O\'Brien - "Jnr"'],
    ['  spaced\tout\r\nlines  ', 'spaced out lines'],
    ['Nkosi & Sons (Pty) Ltd', 'Nkosi & Sons (Pty) Ltd'],
    ['Иван 東京', ''],
  ])('%j becomes %j', (text, expected) => {
    expect(toNetcashText(text)).toBe(expected);
  });
});
