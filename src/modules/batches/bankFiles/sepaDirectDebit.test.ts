import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { refusal } from './bankFiles.fixtures.ts';
import {
  buildPain008,
  creditorIdProblem,
  invoicesRemittance,
  toSepaText,
  type SepaDirectDebitBatch,
  type SepaDirectDebitLine,
} from './sepaDirectDebit.ts';

// The official XSD (test/fixtures/README.md).
const XSD = fileURLToPath(new URL('../../../../test/fixtures/iso20022/pain.008.001.02.xsd', import.meta.url));

/** xmllint's verdict on the document against the official XSD; throws with xmllint's own message if invalid. */
function validateAgainstXsd(xml: string): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pain008-'));
  try {
    const file = path.join(dir, 'pain.008.xml');
    fs.writeFileSync(file, xml);
    try {
      execFileSync('xmllint', ['--noout', '--schema', XSD, file], { stdio: 'pipe' });
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
      throw new Error(`xmllint rejects the pain.008:\n${stderr}\n${xml}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  isArray: (name) => ['PmtInf', 'DrctDbtTxInf'].includes(name),
});

function parsed(xml: string): any {
  return parser.parse(xml).Document.CstmrDrctDbtInitn;
}

/** Cents as euros, by string arithmetic on BigInt: the reference the CtrlSum is checked against. */
function euros(cents: bigint): string {
  const text = cents.toString().padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

function line(overrides: Partial<SepaDirectDebitLine> = {}): SepaDirectDebitLine {
  return {
    endToEndId: 'PAY-1001',
    amountMinor: 2500,
    currency: 'EUR',
    sequenceType: 'RCUR',
    mandateId: 'MANDATE-0001',
    mandateSignatureDate: '2024-11-05',
    debtorName: 'Jan de Vries',
    debtorIban: 'NL91ABNA0417164300',
    debtorBic: 'ABNANL2A',
    remittanceText: 'Invoice INV-1001',
    ...overrides,
  };
}

function batch(
  lines: SepaDirectDebitLine[],
  overrides: Partial<SepaDirectDebitBatch> = {},
): SepaDirectDebitBatch {
  return {
    messageId: 'MSG-20250301-0001',
    createdAt: '2025-03-01T09:30:00.000Z',
    initiatingPartyName: 'Acme Subscriptions GmbH',
    creditor: {
      name: 'Acme Subscriptions GmbH',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      schemeId: 'DE98ZZZ09999999999',
    },
    requestedCollectionDate: '2025-03-10',
    lines,
    ...overrides,
  };
}

describe('buildPain008', () => {
  const mixed = batch([
    line({
      endToEndId: 'PAY-1',
      sequenceType: 'FRST',
      amountMinor: 1,
      debtorName: 'Müller & Söhne <Bäckerei> Café',
      debtorIban: 'DE89 3704 0044 0532 0130 00',
      debtorBic: undefined,
      remittanceText: 'Rechnung 1 – März',
    }),
    line({
      endToEndId: 'PAY-2',
      sequenceType: 'RCUR',
      amountMinor: 123_456_789,
      debtorName: 'Zoë Ĳsselmeer',
    }),
    line({ endToEndId: 'PAY-3', sequenceType: 'FRST', amountMinor: 1000, debtorName: "Seán O'Brien 東京" }),
    line({ endToEndId: 'PAY-4', sequenceType: 'RCUR', amountMinor: 99, remittanceText: undefined }),
  ]);

  it('builds a multi-line batch with two sequence types that the official pain.008.001.02 XSD accepts', () => {
    validateAgainstXsd(buildPain008(mixed));
  });

  it('groups lines into one PmtInf per sequence type with exact NbOfTxs and CtrlSum', () => {
    const doc = parsed(buildPain008(mixed));
    // 0.01 + 1234567.89 + 10.00 + 0.99 = 1234578.89
    expect(doc.GrpHdr.NbOfTxs).toBe('4');
    expect(doc.GrpHdr.CtrlSum).toBe('1234578.89');
    expect(
      doc.PmtInf.map((block: any) => ({
        id: block.PmtInfId,
        sequence: block.PmtTpInf.SeqTp,
        count: block.NbOfTxs,
        sum: block.CtrlSum,
        lines: block.DrctDbtTxInf.map((tx: any) => tx.PmtId.EndToEndId),
      })),
    ).toEqual([
      // FRST: 0.01 + 10.00
      { id: 'MSG-20250301-0001-1', sequence: 'FRST', count: '2', sum: '10.01', lines: ['PAY-1', 'PAY-3'] },
      // RCUR: 1234567.89 + 0.99
      {
        id: 'MSG-20250301-0001-2',
        sequence: 'RCUR',
        count: '2',
        sum: '1234568.88',
        lines: ['PAY-2', 'PAY-4'],
      },
    ]);
  });

  it('writes amounts from minor units exactly: 0.01 and 1234567.89', () => {
    const txs = parsed(buildPain008(mixed)).PmtInf.flatMap((block: any) => block.DrctDbtTxInf);
    expect(txs.map((tx: any) => [tx.InstdAmt['#text'], tx.InstdAmt['@_Ccy']])).toEqual([
      ['0.01', 'EUR'],
      ['10.00', 'EUR'],
      ['1234567.89', 'EUR'],
      ['0.99', 'EUR'],
    ]);
  });

  it('puts lines with different collection dates into different PmtInf blocks, earliest first', () => {
    const doc = parsed(
      buildPain008(
        batch([
          line({ endToEndId: 'LATE', requestedCollectionDate: '2025-03-12' }),
          line({ endToEndId: 'SOON' }),
          line({ endToEndId: 'ONE-OFF', sequenceType: 'OOFF' }),
          line({ endToEndId: 'LAST', sequenceType: 'FNAL' }),
        ]),
      ),
    );
    expect(doc.PmtInf.map((block: any) => [block.ReqdColltnDt, block.PmtTpInf.SeqTp, block.NbOfTxs])).toEqual(
      [
        ['2025-03-10', 'RCUR', '1'],
        ['2025-03-10', 'FNAL', '1'],
        ['2025-03-10', 'OOFF', '1'],
        ['2025-03-12', 'RCUR', '1'],
      ],
    );
  });

  it('converts names to the SEPA character set: & to +, < > to ( ), accents to base letters, other scripts dropped', () => {
    const xml = buildPain008(mixed);
    const names = parsed(xml)
      .PmtInf.flatMap((block: any) => block.DrctDbtTxInf)
      .map((tx: any) => tx.Dbtr.Nm);
    expect(names).toEqual([
      'Muller + Sohne (Backerei) Cafe',
      "Sean O'Brien",
      'Zoe IJsselmeer',
      'Jan de Vries',
    ]);
    expect(xml).not.toMatch(/[^\x20-\x7e\n]/);
  });

  it("escapes the apostrophe, the one XML-special character the SEPA set keeps, so O'Brien reads back intact", () => {
    const xml = buildPain008(batch([line({ debtorName: "O'Brien" })]));
    expect(xml).toContain('<Nm>O&apos;Brien</Nm>');
    expect(parsed(xml).PmtInf[0].DrctDbtTxInf[0].Dbtr.Nm).toBe("O'Brien");
  });

  it('writes NOTPROVIDED as the agent of a debtor or creditor without BIC', () => {
    const doc = parsed(
      buildPain008(
        batch([line({ debtorBic: undefined })], {
          creditor: { name: 'Acme', iban: 'DE89370400440532013000', schemeId: 'DE98ZZZ09999999999' },
        }),
      ),
    );
    const block = doc.PmtInf[0];
    expect(block.CdtrAgt.FinInstnId).toEqual({ Othr: { Id: 'NOTPROVIDED' } });
    expect(block.DrctDbtTxInf[0].DbtrAgt.FinInstnId).toEqual({ Othr: { Id: 'NOTPROVIDED' } });
  });

  it('writes the mandate, the creditor identifier, SEPA CORE and the creation instant to the second', () => {
    const xml = buildPain008(batch([line()], { createdAt: '2025-03-01T10:30:15.987+01:00' }));
    validateAgainstXsd(xml);
    const doc = parsed(xml);
    expect(doc.GrpHdr.CreDtTm).toBe('2025-03-01T09:30:15Z');
    const block = doc.PmtInf[0];
    expect(block.PmtTpInf).toEqual({ SvcLvl: { Cd: 'SEPA' }, LclInstrm: { Cd: 'CORE' }, SeqTp: 'RCUR' });
    expect(block.CdtrSchmeId.Id.PrvtId.Othr).toEqual({
      Id: 'DE98ZZZ09999999999',
      SchmeNm: { Prtry: 'SEPA' },
    });
    expect(block.DrctDbtTxInf[0].DrctDbtTx.MndtRltdInf).toEqual({
      MndtId: 'MANDATE-0001',
      DtOfSgntr: '2024-11-05',
    });
  });

  it('keeps a PmtInfId within 35 characters when the message id already uses all 35', () => {
    const messageId = 'M'.repeat(35);
    const xml = buildPain008(
      batch([line(), line({ endToEndId: 'PAY-2', sequenceType: 'FRST' })], { messageId }),
    );
    validateAgainstXsd(xml);
    expect(parsed(xml).PmtInf.map((block: any) => block.PmtInfId)).toEqual([
      `${'M'.repeat(33)}-1`,
      `${'M'.repeat(33)}-2`,
    ]);
  });

  it('refuses an end-to-end id over 35 characters, naming the field, rather than truncating it', () => {
    const error = refusal(() => buildPain008(batch([line(), line({ endToEndId: 'P'.repeat(36) })])));
    expect(error.code).toBe('bank_file_input_invalid');
    expect(error.fields).toEqual([
      { field: 'lines[1].endToEndId', message: 'must be at most 35 characters, not 36' },
    ]);
  });

  it('refuses an invalid IBAN, naming the field', () => {
    const error = refusal(() => buildPain008(batch([line({ debtorIban: 'DE89370400440532013001' })])));
    expect(error.fields).toEqual([{ field: 'lines[0].debtorIban', message: 'has wrong check digits' }]);
  });

  it('refuses a batch with no lines', () => {
    const error = refusal(() => buildPain008(batch([])));
    expect(error.fields).toEqual([{ field: 'lines', message: 'must have at least one line' }]);
  });

  it('names every bad field at once', () => {
    const error = refusal(() =>
      buildPain008(
        batch(
          [
            line({ amountMinor: 0, currency: 'USD', mandateSignatureDate: '2025-03-11' }),
            line({ debtorName: '東京', debtorBic: 'deutdeff', remittanceText: 'x'.repeat(141) }),
          ],
          {
            messageId: 'MSG//1',
            createdAt: '2025-03-01 09:30',
            creditor: { name: 'Acme', iban: 'DE89370400440532013000', schemeId: 'DE99ZZZ09999999999' },
            requestedCollectionDate: '2025-02-30',
          },
        ),
      ),
    );
    expect(error.fields.map((problem) => problem.field)).toEqual([
      'messageId',
      'createdAt',
      'creditor.schemeId',
      'requestedCollectionDate',
      'lines[0].amountMinor',
      'lines[0].currency',
      'lines[1].endToEndId',
      'lines[1].debtorName',
      'lines[1].debtorBic',
      'lines[1].remittanceText',
    ]);
    expect(error.fields[0]!.message).toBe('must not start or end with / nor contain //');
    expect(error.fields[6]!.message).toBe('repeats lines[0].endToEndId');
  });

  it('refuses a mandate signed after the collection date', () => {
    const error = refusal(() => buildPain008(batch([line({ mandateSignatureDate: '2025-03-11' })])));
    expect(error.fields).toEqual([
      { field: 'lines[0].mandateSignatureDate', message: 'must not be after the collection date 2025-03-10' },
    ]);
  });

  it('refuses identifiers outside the SEPA character set instead of converting them', () => {
    const error = refusal(() =>
      buildPain008(
        batch([line({ endToEndId: 'pay_1', mandateId: 'MANDATÉ-1' }), line({ endToEndId: '/PAY-2' })]),
      ),
    );
    expect(error.fields).toEqual([
      { field: 'lines[0].endToEndId', message: "must use only A-Z a-z 0-9 / - ? : ( ) . , ' + and space" },
      { field: 'lines[0].mandateId', message: "must use only A-Z a-z 0-9 / - ? : ( ) . , ' + and space" },
      { field: 'lines[1].endToEndId', message: 'must not start or end with / nor contain //' },
    ]);
  });

  it('refuses a name over 70 characters once converted (ß becomes ss)', () => {
    const error = refusal(() => buildPain008(batch([line({ debtorName: 'ß'.repeat(36) })])));
    expect(error.fields).toEqual([
      {
        field: 'lines[0].debtorName',
        message: 'must be at most 70 characters in the SEPA character set, not 72',
      },
    ]);
  });

  it('accepts the largest amount the scheme allows and refuses one cent more', () => {
    validateAgainstXsd(buildPain008(batch([line({ amountMinor: 99_999_999_999 })])));
    const error = refusal(() => buildPain008(batch([line({ amountMinor: 100_000_000_000 })])));
    expect(error.fields.map((problem) => problem.field)).toEqual(['lines[0].amountMinor']);
  });
});

describe('toSepaText', () => {
  it.each([
    ['Müller & Söhne', 'Muller + Sohne'],
    ['Crème brûlée <Café>', 'Creme brulee (Cafe)'],
    ['Straße Ærø Łódź', 'Strasse AEro Lodz'],
    ['“Quoted” – dash_under', "'Quoted' - dash-under"],
    ['a;b!c@d#e', 'a,b c d e'],
    ['  spaced\tout\nlines  ', 'spaced out lines'],
    ['Иван 東京', ''],
  ])('%j becomes %j', (text, expected) => {
    expect(toSepaText(text)).toBe(expected);
  });
});

describe('creditorIdProblem', () => {
  it.each(['DE98ZZZ09999999999', 'AT61ZZZ01234567890', 'IT66ZZZA1B2C3D4E5F6G7H8', 'BE69ZZZ050D000000008'])(
    'accepts %s',
    (id) => {
      expect(creditorIdProblem(id)).toBeUndefined();
    },
  );

  it.each([
    ['DE99ZZZ09999999999', 'has wrong check digits'],
    ['DE98ZZZ0999999999', 'has wrong check digits'],
    [
      'de98zzz09999999999',
      'must be a SEPA creditor identifier: country, check digits, business code, national identifier',
    ],
    ['DE98', 'must be a SEPA creditor identifier: country, check digits, business code, national identifier'],
  ])('refuses %s: %s', (id, problem) => {
    expect(creditorIdProblem(id)).toBe(problem);
  });
});

/** A German IBAN for an 18-digit BBAN, with its MOD 97-10 check digits computed here. */
function germanIban(bban: string): string {
  const digits = `${bban}131400`; // D = 13, E = 14, check digits 00
  const check = 98 - Number(BigInt(digits) % 97n);
  return `DE${String(check).padStart(2, '0')}${bban}`;
}

describe('buildPain008, property', () => {
  const sepaId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9\-?:().,'+]{0,34}$/);
  const freeText = fc
    .string({ unit: fc.constantFrom(...'aZ09 äéßÆØ&<>"\'_;東京-é/'), maxLength: 30 })
    .map((text) => `N ${text}`);
  const lineArbitrary = fc.record({
    amountMinor: fc.integer({ min: 1, max: 99_999_999_999 }),
    sequenceType: fc.constantFrom('FRST' as const, 'RCUR' as const, 'FNAL' as const, 'OOFF' as const),
    requestedCollectionDate: fc.option(fc.constantFrom('2025-03-10', '2025-03-11'), { nil: undefined }),
    mandateId: sepaId,
    debtorName: freeText,
    debtorIban: fc.stringMatching(/^\d{18}$/).map(germanIban),
    debtorBic: fc.option(fc.constantFrom('DEUTDEFF', 'COBADEFFXXX', 'ABNANL2A'), { nil: undefined }),
    remittanceText: fc.option(freeText, { nil: undefined }),
  });
  const batchArbitrary = fc
    .tuple(fc.array(lineArbitrary, { minLength: 1, maxLength: 8 }), sepaId)
    .chain(([lines, messageId]) =>
      fc.uniqueArray(sepaId, { minLength: lines.length, maxLength: lines.length }).map((ids) =>
        batch(
          lines.map((generated, i) => ({
            ...generated,
            endToEndId: ids[i]!,
            currency: 'EUR',
            mandateSignatureDate: '2024-01-31',
          })),
          { messageId },
        ),
      ),
    );

  it('any valid batch validates against the XSD, and each CtrlSum is the exact sum of its lines', () => {
    fc.assert(
      fc.property(batchArbitrary, (input) => {
        const xml = buildPain008(input);
        validateAgainstXsd(xml);
        const doc = parsed(xml);
        const total = input.lines.reduce((sum, l) => sum + BigInt(l.amountMinor), 0n);
        expect(doc.GrpHdr.CtrlSum).toBe(euros(total));
        expect(doc.GrpHdr.NbOfTxs).toBe(String(input.lines.length));
        for (const block of doc.PmtInf) {
          const cents = block.DrctDbtTxInf.reduce(
            (sum: bigint, tx: any) => sum + BigInt(tx.InstdAmt['#text'].replace('.', '')),
            0n,
          );
          expect(block.CtrlSum).toBe(euros(cents));
          expect(block.NbOfTxs).toBe(String(block.DrctDbtTxInf.length));
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('invoicesRemittance', () => {
  it('names the invoices a collection pays, in the SEPA character set', () => {
    expect(invoicesRemittance([])).toBeUndefined();
    expect(invoicesRemittance(['1001'])).toBe('Invoice 1001');
    expect(invoicesRemittance(['1001', '1002'])).toBe('Invoices 1001, 1002');
    expect(invoicesRemittance(['INV#7_ü'])).toBe('Invoice INV 7-u');
  });

  it('counts the invoices that do not fit in one 140-character line', () => {
    const numbers = Array.from({ length: 40 }, (_, i) => String(100_000 + i));
    const text = invoicesRemittance(numbers)!;
    expect(text.length).toBeLessThanOrEqual(140);
    const shown = text
      .replace(/^Invoices /, '')
      .replace(/ \+\d+ more$/, '')
      .split(', ');
    expect(shown).toEqual(numbers.slice(0, shown.length));
    expect(text).toMatch(new RegExp(` \\+${40 - shown.length} more$`));
  });
});
