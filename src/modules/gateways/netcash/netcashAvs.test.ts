import fs from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { avsRealtimeParameters, avsVerdict, readAvsAnswer, readAvsReport } from './netcashAvs.ts';
import { NIWS_NAMESPACE, niwsEnvelope, readNiwsAnswer } from './niwsClient.ts';
import type { BankAccountToValidate } from '../gatewayContract.ts';

// Netcash's AVS calls as the wire carries them (docs/bank-files.md, "Netcash account verification (AVS)"): the
// envelopes we send checked against golden files field by field, and the answers read as the service's schema
// writes them.

const GOLDEN = path.resolve(import.meta.dirname, '../../../../test/providers/netcash/golden');
const golden = (name: string) => fs.readFileSync(path.join(GOLDEN, name), 'utf8');
const KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';

const ACCOUNT: BankAccountToValidate = {
  method: 'debit_order',
  accountHolder: 'Thandi Nkosi',
  accountNumber: '62001234567',
  branchCode: '250655',
  routingNumber: null,
  iban: null,
  accountType: 'Cheque',
  identity: { kind: 'sa_id', number: '8001015009087' },
  reference: 'PM000042',
};

const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '' });
type Node = Record<string, unknown>;

/** The method element of an envelope: its name, namespace and parameters in order. */
function methodOf(xml: string): { method: string; namespace: string; parameters: [string, string][] } {
  const envelope = (parser.parse(xml) as Node[]).find((node) => 'soap:Envelope' in node)!;
  const body = (envelope['soap:Envelope'] as Node[]).find((node) => 'soap:Body' in node)!;
  const call = (body['soap:Body'] as Node[]).find((node) => !('#text' in node))!;
  const method = Object.keys(call).find((key) => key !== ':@')!;
  const parameters = (call[method] as Node[])
    .filter((node) => !('#text' in node))
    .map((node) => {
      const name = Object.keys(node)[0]!;
      return [name, String((node[name] as Node[])[0]?.['#text'] ?? '')] as [string, string];
    });
  return { method, namespace: (call[':@'] as Record<string, string>).xmlns!, parameters };
}

/** Whitespace between elements is the golden file's layout, not content. */
const compact = (xml: string) => xml.trim().replace(/>\s+</g, '><');

describe("Netcash's AVS on the wire", () => {
  it('asks AVSRealtimeQuery with the schema’s parameters in order, as the golden envelope', () => {
    const sent = niwsEnvelope('AVSRealtimeQuery', avsRealtimeParameters(KEY, ACCOUNT));
    const expected = golden('avsRealtimeQuery.request.xml');
    expect(methodOf(sent)).toEqual(methodOf(expected));
    expect(methodOf(expected)).toEqual({
      method: 'AVSRealtimeQuery',
      namespace: NIWS_NAMESPACE,
      parameters: [
        ['ServiceKey', KEY],
        ['AccountReference', 'PM000042'],
        ['BankAccountNumber', '62001234567'],
        ['BranchCode', '250655'],
        ['BankAccountType', 'Current'],
        ['EnquiryName', 'Thandi Nkosi'],
        ['IdNumber', '8001015009087'],
        ['IsIdNumber', 'true'],
      ],
    });
    expect(sent).toBe(compact(expected));
  });

  it('leaves out a passport number, which the service cannot take as an ID number', () => {
    const names = avsRealtimeParameters(KEY, {
      ...ACCOUNT,
      accountType: 'Savings',
      identity: { kind: 'passport', number: 'A1234567' },
    }).map(([name, value]) => `${name}=${value}`);
    expect(names).toContain('BankAccountType=Savings');
    expect(names.some((name) => name.startsWith('IdNumber') || name.startsWith('IsIdNumber'))).toBe(false);
  });

  it('asks RequestAVSReport by the file token, as the golden envelope', () => {
    const sent = niwsEnvelope('RequestAVSReport', [
      ['ServiceKey', KEY],
      ['FileToken', '20000000.2550236530.0483.2.1'],
    ]);
    const expected = golden('requestAvsReport.request.xml');
    expect(methodOf(sent)).toEqual(methodOf(expected));
    expect(sent).toBe(compact(expected));
  });

  it('reads the answer the schema writes: a full match, a refusal, the bulk token, Netcash not asking', () => {
    const answer = golden('avsRealtimeQuery.response.xml');
    expect(readAvsAnswer(readNiwsAnswer('AVSRealtimeQuery', answer))).toEqual({
      outcome: 'ok',
      detail: 'full match',
    });
    const withField = (field: string, value: string) =>
      readAvsAnswer(
        readNiwsAnswer(
          'AVSRealtimeQuery',
          answer.replace(new RegExp(`<a:${field}>[^<]*</a:${field}>`), `<a:${field}>${value}</a:${field}>`),
        ),
      );
    expect(withField('IdNumberMatch', 'Invalid')).toMatchObject({
      outcome: 'declined',
      reason: 'account_holder_mismatch',
      rawCode: 'IdNumberMatch=Invalid',
    });
    expect(withField('AccountActive', 'Invalid')).toMatchObject({ reason: 'account_closed' });
    expect(withField('IdNumberMatch', 'NotApplicable')).toEqual({
      outcome: 'ok',
      detail: 'matched; the bank did not confirm IdNumberMatch',
    });
    const offline = answer
      .replace('<a:ErrorCode>000</a:ErrorCode>', '<a:ErrorCode>328</a:ErrorCode>')
      .replace('<a:FileToken i:nil="true"/>', '<a:FileToken>20000000.1.2</a:FileToken>');
    expect(readAvsAnswer(readNiwsAnswer('AVSRealtimeQuery', offline))).toMatchObject({
      outcome: 'pending',
      providerRef: '20000000.1.2',
    });
    expect(withField('ErrorCode', '106')).toEqual({
      outcome: 'pending',
      detail: 'Netcash answered 106 (IncorrectServiceKeyOrInactive)',
    });
  });

  it('reads the bulk report for its enquiry, and waits while the file is not ready or unreadable', () => {
    const report = [
      'AccountReference\tBankAccountNumberValid\tAccountActive\tAcceptsDebits\tIdNumberMatch',
      'PM000041\tValid\tValid\tValid\tInvalid',
      'PM000042\tValid\tValid\tInvalid\tValid',
    ].join('\r\n');
    expect(readAvsReport(report, 'T1', 'PM000042')).toMatchObject({
      outcome: 'declined',
      reason: 'debits_not_allowed',
    });
    expect(readAvsReport('FILE NOT READY', 'T1', 'PM000042')).toEqual({
      outcome: 'pending',
      providerRef: 'T1',
      detail: 'FILE NOT READY',
    });
    const unreadable = readAvsReport('8001015009087 something else', 'T1', 'PM000042');
    expect(unreadable).toMatchObject({ outcome: 'pending', providerRef: 'T1' });
    expect(JSON.stringify(unreadable)).not.toContain('8001015009087');
    expect(avsVerdict({ BankAccountNumberValid: 'Invalid', AccountActive: 'Invalid' })).toMatchObject({
      reason: 'invalid_account',
    });
  });
});
