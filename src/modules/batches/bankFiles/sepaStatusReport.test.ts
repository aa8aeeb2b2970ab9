import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it, vi } from 'vitest';
import { refusal } from './bankFiles.fixtures.ts';
import { buildPain008 } from './sepaDirectDebit.ts';
import { MAX_NESTING, parsePain002, sepaReason } from './sepaStatusReport.ts';

/**
 * A status report as a creditor bank sends one back for a pain.008 of three blocks: the message partly accepted;
 * block 1 with one rejected and one accepted transaction; block 2 with rejections for insufficient funds (one
 * hidden behind MS03), a cancelled mandate and one still pending; block 3 rejected as a whole, its transaction
 * carrying no status of its own.
 */
const REPORT = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <CstmrPmtStsRpt>
    <GrpHdr>
      <MsgId>STS-20250311-000123</MsgId>
      <CreDtTm>2025-03-11T06:12:44</CreDtTm>
      <CdtrAgt>
        <FinInstnId>
          <BIC>COBADEFFXXX</BIC>
        </FinInstnId>
      </CdtrAgt>
    </GrpHdr>
    <OrgnlGrpInfAndSts>
      <OrgnlMsgId>MSG-20250301-0001</OrgnlMsgId>
      <OrgnlMsgNmId>pain.008.001.02</OrgnlMsgNmId>
      <OrgnlNbOfTxs>7</OrgnlNbOfTxs>
      <OrgnlCtrlSum>1234705.88</OrgnlCtrlSum>
      <GrpSts>PART</GrpSts>
      <NbOfTxsPerSts>
        <DtldNbOfTxs>1</DtldNbOfTxs>
        <DtldSts>ACCP</DtldSts>
      </NbOfTxsPerSts>
      <NbOfTxsPerSts>
        <DtldNbOfTxs>5</DtldNbOfTxs>
        <DtldSts>RJCT</DtldSts>
      </NbOfTxsPerSts>
    </OrgnlGrpInfAndSts>
    <OrgnlPmtInfAndSts>
      <OrgnlPmtInfId>MSG-20250301-0001-1</OrgnlPmtInfId>
      <OrgnlNbOfTxs>2</OrgnlNbOfTxs>
      <OrgnlCtrlSum>10.01</OrgnlCtrlSum>
      <PmtInfSts>PART</PmtInfSts>
      <TxInfAndSts>
        <StsId>RJ-0001</StsId>
        <OrgnlInstrId>INSTR-1</OrgnlInstrId>
        <OrgnlEndToEndId>PAY-1</OrgnlEndToEndId>
        <TxSts>RJCT</TxSts>
        <StsRsnInf>
          <Orgtr>
            <Id>
              <OrgId>
                <BICOrBEI>DEUTDEFF</BICOrBEI>
              </OrgId>
            </Id>
          </Orgtr>
          <Rsn>
            <Cd>AC04</Cd>
          </Rsn>
          <AddtlInf>Konto aufgeloest</AddtlInf>
        </StsRsnInf>
        <OrgnlTxRef>
          <Amt>
            <InstdAmt Ccy="EUR">0.01</InstdAmt>
          </Amt>
          <ReqdColltnDt>2025-03-10</ReqdColltnDt>
          <MndtRltdInf>
            <MndtId>MANDATE-0001</MndtId>
            <DtOfSgntr>2024-11-05</DtOfSgntr>
          </MndtRltdInf>
        </OrgnlTxRef>
      </TxInfAndSts>
      <TxInfAndSts>
        <OrgnlEndToEndId>PAY-3</OrgnlEndToEndId>
        <TxSts>ACCP</TxSts>
        <OrgnlTxRef>
          <Amt>
            <InstdAmt Ccy="EUR">10.00</InstdAmt>
          </Amt>
        </OrgnlTxRef>
      </TxInfAndSts>
    </OrgnlPmtInfAndSts>
    <OrgnlPmtInfAndSts>
      <OrgnlPmtInfId>MSG-20250301-0001-2</OrgnlPmtInfId>
      <PmtInfSts>PART</PmtInfSts>
      <TxInfAndSts>
        <OrgnlEndToEndId>PAY-2</OrgnlEndToEndId>
        <TxSts>RJCT</TxSts>
        <StsRsnInf>
          <Rsn>
            <Cd>AM04</Cd>
          </Rsn>
          <AddtlInf>Insufficient funds</AddtlInf>
          <AddtlInf>Second attempt allowed</AddtlInf>
        </StsRsnInf>
        <OrgnlTxRef>
          <Amt>
            <InstdAmt Ccy="EUR">1234567.89</InstdAmt>
          </Amt>
        </OrgnlTxRef>
      </TxInfAndSts>
      <TxInfAndSts>
        <OrgnlEndToEndId>PAY-4</OrgnlEndToEndId>
        <TxSts>RJCT</TxSts>
        <StsRsnInf>
          <Rsn>
            <Cd>MS03</Cd>
          </Rsn>
        </StsRsnInf>
      </TxInfAndSts>
      <TxInfAndSts>
        <OrgnlEndToEndId>PAY-5</OrgnlEndToEndId>
        <TxSts>RJCT</TxSts>
        <StsRsnInf>
          <Rsn>
            <Cd>MD01</Cd>
          </Rsn>
        </StsRsnInf>
      </TxInfAndSts>
      <TxInfAndSts>
        <OrgnlEndToEndId>PAY-6</OrgnlEndToEndId>
        <TxSts>PDNG</TxSts>
      </TxInfAndSts>
    </OrgnlPmtInfAndSts>
    <OrgnlPmtInfAndSts>
      <OrgnlPmtInfId>MSG-20250301-0001-3</OrgnlPmtInfId>
      <PmtInfSts>RJCT</PmtInfSts>
      <StsRsnInf>
        <Rsn>
          <Cd>MD07</Cd>
        </Rsn>
      </StsRsnInf>
      <TxInfAndSts>
        <OrgnlEndToEndId>PAY-7</OrgnlEndToEndId>
      </TxInfAndSts>
    </OrgnlPmtInfAndSts>
  </CstmrPmtStsRpt>
</Document>
`;

describe('parsePain002', () => {
  it('reads the group status, the original message and each block', () => {
    const report = parsePain002(REPORT);
    expect(report).toMatchObject({
      messageId: 'STS-20250311-000123',
      createdAt: '2025-03-11T06:12:44',
      originalMessageId: 'MSG-20250301-0001',
      originalMessageNameId: 'pain.008.001.02',
      groupStatus: 'PART',
      groupReasons: [],
    });
    expect(report.paymentInfos).toEqual([
      { originalPaymentInfoId: 'MSG-20250301-0001-1', status: 'PART', reasons: [] },
      { originalPaymentInfoId: 'MSG-20250301-0001-2', status: 'PART', reasons: [] },
      {
        originalPaymentInfoId: 'MSG-20250301-0001-3',
        status: 'RJCT',
        reasons: [{ code: 'MD07', additionalInfo: [] }],
      },
    ]);
  });

  it('reads each transaction: its end-to-end id, status, reason code and the reason in our taxonomy', () => {
    const rows = parsePain002(REPORT).transactions.map((tx) => [
      tx.originalEndToEndId,
      tx.status,
      tx.reasonCode,
      tx.reason,
    ]);
    expect(rows).toEqual([
      ['PAY-1', 'RJCT', 'AC04', { reason: 'account_closed', retryable: false }],
      ['PAY-3', 'ACCP', undefined, undefined],
      ['PAY-2', 'RJCT', 'AM04', { reason: 'insufficient_funds', retryable: true }],
      ['PAY-4', 'RJCT', 'MS03', { reason: 'insufficient_funds', retryable: true }],
      ['PAY-5', 'RJCT', 'MD01', { reason: 'authorisation_revoked', retryable: false }],
      ['PAY-6', 'PDNG', undefined, undefined],
      // No status or reason of its own: the rejected block's.
      ['PAY-7', 'RJCT', 'MD07', { reason: 'deceased', retryable: false }],
    ]);
  });

  it('keeps the block, instruction id, additional information and echoed amount in minor units', () => {
    const [first, , second] = parsePain002(REPORT).transactions;
    expect(first).toEqual({
      originalPaymentInfoId: 'MSG-20250301-0001-1',
      originalEndToEndId: 'PAY-1',
      originalInstructionId: 'INSTR-1',
      status: 'RJCT',
      reasonCode: 'AC04',
      reason: { reason: 'account_closed', retryable: false },
      additionalInfo: ['Konto aufgeloest'],
      amountMinor: 1,
      currency: 'EUR',
    });
    expect(second).toMatchObject({
      additionalInfo: ['Insufficient funds', 'Second attempt allowed'],
      amountMinor: 123_456_789,
    });
  });

  it('reads a report whose elements carry a namespace prefix', () => {
    const prefixed = REPORT.replace(/<(\/?)(?=[A-Z])/g, '<$1ns2:').replace('xmlns=', 'xmlns:ns2=');
    expect(prefixed).toContain('<ns2:Document xmlns:ns2=');
    expect(parsePain002(prefixed)).toEqual(parsePain002(REPORT));
  });

  it('reads a report that rejects the whole file with no transactions', () => {
    const report = parsePain002(`<?xml version="1.0"?>
      <Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03">
        <CstmrPmtStsRpt>
          <GrpHdr><MsgId>STS-1</MsgId><CreDtTm>2025-03-11T06:00:00</CreDtTm></GrpHdr>
          <OrgnlGrpInfAndSts>
            <OrgnlMsgId>MSG-1</OrgnlMsgId>
            <OrgnlMsgNmId>pain.008.001.02</OrgnlMsgNmId>
            <GrpSts>RJCT</GrpSts>
            <StsRsnInf><Rsn><Cd>FF01</Cd></Rsn><AddtlInf>Invalid file format</AddtlInf></StsRsnInf>
          </OrgnlGrpInfAndSts>
        </CstmrPmtStsRpt>
      </Document>`);
    expect(report.groupStatus).toBe('RJCT');
    expect(report.groupReasons).toEqual([{ code: 'FF01', additionalInfo: ['Invalid file format'] }]);
    expect(report.transactions).toEqual([]);
  });

  it('rejects a document that is not a pain.002, naming what it is', () => {
    const pain008 = buildPain008({
      messageId: 'MSG-1',
      createdAt: '2025-03-01T09:30:00Z',
      initiatingPartyName: 'Acme',
      creditor: { name: 'Acme', iban: 'DE89370400440532013000', schemeId: 'DE98ZZZ09999999999' },
      requestedCollectionDate: '2025-03-10',
      lines: [
        {
          endToEndId: 'PAY-1',
          amountMinor: 100,
          currency: 'EUR',
          sequenceType: 'OOFF',
          mandateId: 'M-1',
          mandateSignatureDate: '2025-01-01',
          debtorName: 'Jan',
          debtorIban: 'NL91ABNA0417164300',
        },
      ],
    });
    const error = refusal(() => parsePain002(pain008));
    expect(error.code).toBe('bank_file_unreadable');
    expect(error.fields).toEqual([
      {
        field: 'document',
        message:
          'must be a pain.002.001.03 Document (urn:iso:std:iso:20022:tech:xsd:pain.002.001.03), not Document in ' +
          'namespace urn:iso:std:iso:20022:tech:xsd:pain.008.001.02',
      },
    ]);
  });

  it.each([
    [
      'a later version of the message',
      REPORT.replace('pain.002.001.03', 'pain.002.001.10'),
      /not Document in namespace/,
    ],
    [
      'a document without namespace',
      REPORT.replace(/ xmlns="[^"]*"/, ''),
      /not Document in namespace \(none\)/,
    ],
    [
      'a camt.054',
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrDbtCdtNtfctn/></Document>',
      /camt\.054/,
    ],
    ['CSV text', 'EndToEndId;Status\nPAY-1;RJCT\n', /is not well-formed XML/],
    ['truncated XML', REPORT.slice(0, 400), /is not well-formed XML/],
    [
      'a DOCTYPE',
      `<!DOCTYPE x [<!ENTITY a "aaaa">]>${REPORT.slice(REPORT.indexOf('<Document'))}`,
      /must not have a DOCTYPE/,
    ],
  ])('rejects %s', (_, xml, message) => {
    const error = refusal(() => parsePain002(xml));
    expect(error.code).toBe('bank_file_unreadable');
    expect(error.message).toMatch(message);
  });

  it.each(['__proto__', 'constructor', 'prototype', 'ns2:__proto__'])(
    'rejects an element named %s as unreadable, naming it',
    (name) => {
      const xml = REPORT.replace('<GrpHdr>', `<GrpHdr><${name}>x</${name}>`);
      const error = refusal(() => parsePain002(xml));
      expect(error.code).toBe('bank_file_unreadable');
      expect(error.fields).toEqual([
        { field: 'document', message: `has an element named ${name}, which a pain.002.001.03 does not have` },
      ]);
    },
  );

  it.each([MAX_NESTING, 100, 5000])('rejects elements nested %i levels below the report', (depth) => {
    const nested = `${'<Nst>'.repeat(depth)}${'</Nst>'.repeat(depth)}`;
    const error = refusal(() => parsePain002(REPORT.replace('<GrpHdr>', `<GrpHdr>${nested}`)));
    expect(error.code).toBe('bank_file_unreadable');
    expect(error.fields).toEqual([
      { field: 'document', message: `nests elements more than ${MAX_NESTING} levels deep` },
    ]);
  });

  it('reads elements nested as deep as allowed', () => {
    // Document, CstmrPmtStsRpt and GrpHdr are three levels.
    const depth = MAX_NESTING - 3;
    const nested = `${'<Nst>'.repeat(depth)}${'</Nst>'.repeat(depth)}`;
    expect(parsePain002(REPORT.replace('<GrpHdr>', `<GrpHdr>${nested}`))).toEqual(parsePain002(REPORT));
  });

  it('reads the text into a tree once', () => {
    // A megabyte report held the event loop for each reading; one is enough.
    const parse = vi.spyOn(XMLParser.prototype, 'parse');
    try {
      parsePain002(REPORT.replace(/<(\/?)(?=[A-Z])/g, '<$1ns2:').replace('xmlns=', 'xmlns:ns2='));
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('rejects a status the standard does not define', () => {
    const error = refusal(() => parsePain002(REPORT.replace('<TxSts>PDNG</TxSts>', '<TxSts>DONE</TxSts>')));
    expect(error.message).toBe('document: TxInfAndSts PAY-6 has the unknown status DONE');
  });

  it('rejects a transaction without the end-to-end id it would be matched by', () => {
    const error = refusal(() => parsePain002(REPORT.replace('<OrgnlEndToEndId>PAY-6</OrgnlEndToEndId>', '')));
    expect(error.message).toBe(
      'document: a TxInfAndSts of OrgnlPmtInfAndSts MSG-20250301-0001-2 has no OrgnlEndToEndId',
    );
  });
});

describe('sepaReason', () => {
  it('is exported beside the parser for the collections code', () => {
    expect(sepaReason('AC01')).toEqual({ reason: 'invalid_account', retryable: false });
  });
});
