import fs from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { netcashSettingsProblems } from './netcashSettings.ts';
import { maskedDigits, netcashUploads, readLoadReport } from './netcashUploads.ts';
import { niwsClient } from './niwsClient.ts';

// The netcash driver's uploads and statements (docs/gateways/netcash.md, "Uploading through NIWS_NIF"): each SOAP
// request against its golden file (test/fixtures/netcash/niws/, docs/bank-files.md, "Netcash's web service: the
// requests"), read field by field; each answer Netcash's pages document read into the contract's outcomes.

const SERVICE_KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';
const ACCOUNT_KEY = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const SETTINGS = { serviceKey: SERVICE_KEY, accountServiceKey: ACCOUNT_KEY };
const TARGET = { id: 1, type: 'netcash', isTestMode: false };
const KEY_RECORD = ['K', '101', '102', '131', '132', '133', '134', '136', '162', '301'];

/** A NIF file of two lines as the batches module builds it (docs/bank-files.md), payments 41 and 42. */
const FILE = [
  ['H', SERVICE_KEY, '1', 'TwoDay', 'B7S1773100800', '20260312', '24ade73c-98cf-47b3-99be-cc7b867b3080'],
  KEY_RECORD,
  ['T', 'PM000007', 'Thandi Nkosi', '1', 'Thandi Nkosi', '1', '250655', '62001234567', '34950', '41'],
  ['T', 'PM000008', 'Pieter & Sons', '1', 'Pieter & Sons', '2', '051001', '1234567890', '12000', '42'],
  ['F', '2', '46950', '9999'],
]
  .map((record) => `${record.join('\t')}\r\n`)
  .join('');

interface Sent {
  url: string;
  headers: Headers;
  body: string;
}

/** A fetch that keeps what it was sent and answers `result` as the method's text result. */
function answering(result: string): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    sent.push({ url: String(input), headers: new Headers(init?.headers), body: String(init?.body) });
    const method = /<(\w+) xmlns="http:\/\/tempuri.org\/">/.exec(String(init?.body))![1]!;
    // As WCF writes a text: its markup characters escaped, a carriage return as a character reference.
    const text = result.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('\r', '&#xD;');
    return new Response(
      '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>' +
        `<${method}Response xmlns="http://tempuri.org/"><${method}Result>${text}</${method}Result>` +
        `</${method}Response></s:Body></s:Envelope>`,
      { status: 200, headers: { 'content-type': 'text/xml; charset=utf-8' } },
    );
  };
  return { fetch: fetchFn, sent };
}

const driver = (fetchFn: typeof fetch, settings: Record<string, unknown> = SETTINGS) =>
  netcashUploads(niwsClient(fetchFn), settings);

const golden = (method: string) =>
  fs.readFileSync(new URL(`../../../../test/fixtures/netcash/niws/${method}.xml`, import.meta.url), 'utf8');

const ordered = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  parseTagValue: false,
  trimValues: false,
  htmlEntities: true,
});

/** The request read back as Netcash's WCF reads it: the method's element, its namespace, its parameters in order. */
function readRequest(body: string): { method: string; namespace: string; parameters: [string, string][] } {
  const [, envelope] = ordered.parse(body) as Record<string, any>[];
  expect(envelope![':@']).toEqual({ '@_xmlns:soap': 'http://schemas.xmlsoap.org/soap/envelope/' });
  const [soapBody] = envelope!['soap:Envelope'] as Record<string, any>[];
  const [call] = soapBody!['soap:Body'] as Record<string, any>[];
  const method = Object.keys(call!).find((key) => key !== ':@')!;
  const parameters = (call![method] as Record<string, any>[]).map((node): [string, string] => {
    const name = Object.keys(node)[0]!;
    return [name, (node[name] as { '#text'?: string }[]).map((part) => part['#text'] ?? '').join('')];
  });
  return { method, namespace: call![':@']['@_xmlns'], parameters };
}

function expectRequest(sent: Sent, method: string, parameters: [string, string][]): void {
  expect(sent.url).toBe('https://ws.netcash.co.za/NIWS/niws_nif.svc');
  expect(sent.headers.get('content-type')).toBe('text/xml; charset=utf-8');
  expect(sent.headers.get('soapaction')).toBe(`"http://tempuri.org/INIWS_NIF/${method}"`);
  expect(sent.body).toBe(golden(method));
  expect(readRequest(sent.body)).toEqual({ method, namespace: 'http://tempuri.org/', parameters });
}

describe('the requests, against their golden files', () => {
  it('BatchFileUpload sends the debit-order service key and the NIF file, escaped, tabs and line ends kept', async () => {
    const netcash = answering('20000000.2550236530.0483.2.2');
    const answer = await driver(netcash.fetch).submitBatch!(
      TARGET,
      {
        idempotencyKey: 'k',
        rail: 'debit_order',
        currencyCode: 'ZAR',
        actionDate: '2026-03-12',
        lines: [],
        file: FILE,
      },
      '2026-03-10T08:00:00.000Z',
    );
    expect(answer).toEqual({ outcome: 'submitted', providerRef: '20000000.2550236530.0483.2.2' });
    expect(netcash.sent[0]!.body).toContain('Pieter &amp; Sons');
    expectRequest(netcash.sent[0]!, 'BatchFileUpload', [
      ['ServiceKey', SERVICE_KEY],
      ['File', FILE],
    ]);
  });

  it('RequestFileUploadReport sends the service key and the file token', async () => {
    const netcash = answering('FILE NOT READY');
    expect(await driver(netcash.fetch).batchStatus!(TARGET, '20000000.2550236530.0483.2.2', FILE)).toEqual({
      outcome: 'loading',
    });
    expectRequest(netcash.sent[0]!, 'RequestFileUploadReport', [
      ['ServiceKey', SERVICE_KEY],
      ['FileToken', '20000000.2550236530.0483.2.2'],
    ]);
  });

  it('RequestMerchantStatement sends the Account service key and the day as CCYYMMDD', async () => {
    const netcash = answering('636682464000000000');
    expect(await driver(netcash.fetch).requestStatement!(TARGET, '2026-03-12')).toEqual({
      outcome: 'requested',
      pollingId: '636682464000000000',
    });
    expectRequest(netcash.sent[0]!, 'RequestMerchantStatement', [
      ['ServiceKey', ACCOUNT_KEY],
      ['FromActionDate', '20260312'],
    ]);
  });

  it('RetrieveMerchantStatement sends the Account service key and the polling id', async () => {
    const statement = '20260312\tTDD\t70001\tDated debit order\t34950\t+\t0\t41\t\t\tDebtors\r\n';
    const netcash = answering(statement);
    expect(await driver(netcash.fetch).retrieveStatement!(TARGET, '636682464000000000')).toEqual({
      outcome: 'ready',
      document: statement,
    });
    expectRequest(netcash.sent[0]!, 'RetrieveMerchantStatement', [
      ['ServiceKey', ACCOUNT_KEY],
      ['PollingId', '636682464000000000'],
    ]);
  });
});

describe("Netcash's answers", () => {
  it('reads an upload refused with a code in words, and a statement not ready, refused or with no change', async () => {
    const upload = {
      idempotencyKey: 'k',
      rail: 'debit_order' as const,
      currencyCode: 'ZAR',
      actionDate: '2026-03-12',
      lines: [],
      file: FILE,
    };
    expect(await driver(answering('100').fetch).submitBatch!(TARGET, upload, '')).toEqual({
      outcome: 'rejected',
      message: 'Netcash refused the upload: 100 (authentication failed: check the gateway’s service key)',
      lineErrors: [],
    });
    expect((await driver(answering('102').fetch).submitBatch!(TARGET, upload, '')).outcome).toBe('rejected');
    await expect(driver(answering('a token?').fetch).submitBatch!(TARGET, upload, '')).rejects.toThrow(
      /file token/,
    );
    expect(await driver(answering('FILE NOT READY').fetch).retrieveStatement!(TARGET, '1')).toEqual({
      outcome: 'not_ready',
    });
    expect(await driver(answering('NO CHANGE').fetch).retrieveStatement!(TARGET, '1')).toEqual({
      outcome: 'ready',
      document: '',
    });
    expect(await driver(answering('101').fetch).requestStatement!(TARGET, '2026-03-12')).toEqual({
      outcome: 'refused',
      message: 'Netcash answered 101 (the date is not CCYYMMDD)',
    });
    expect(await driver(answering('200').fetch).retrieveStatement!(TARGET, '1')).toMatchObject({
      outcome: 'refused',
    });
    await expect(driver(answering('100').fetch).batchStatus!(TARGET, 't', FILE)).rejects.toThrow(
      /answered 100/,
    );
  });

  it('has no upload at all for a gateway whose settings keep files by hand', () => {
    expect(driver(answering('').fetch, { ...SETTINGS, uploadThroughWebService: false })).toEqual({});
  });
});

describe('the load report', () => {
  const report = (...lines: string[]) => lines.join('\n');

  it('is accepted when SUCCESSFUL', () => {
    expect(
      readLoadReport(report('###BEGIN\tB7S1773100800\tSUCCESSFUL\t09:15 AM', '###END\t09:16 AM'), FILE),
    ).toEqual({
      outcome: 'accepted',
    });
  });

  it('names each refused line by its payment, through its line number or its reference, and keeps the rest', () => {
    const status = readLoadReport(
      report(
        '###BEGIN\tB7S1773100800\tUNSUCCESSFUL\t09:15 AM',
        'PM000007\tLine :3\tInvalid branch code',
        'PM000008\tLine :9\tAccount number 1234567890 failed the check digit',
        'PM000099\tLine :12\tUnknown reference',
        '###ERROR\tThe batch total exceeds the daily limit',
        '###END\t09:16 AM',
      ),
      FILE,
    );
    expect(status).toEqual({
      outcome: 'rejected',
      message:
        'Netcash did not load the file (UNSUCCESSFUL); PM000099 Line :12: Unknown reference; The batch total exceeds the daily limit',
      lineErrors: [
        { lineRef: '41', message: 'Invalid branch code' },
        // Line 9 is no line of the file: its reference names payment 42. The account number is masked.
        { lineRef: '42', message: 'Account number …890 failed the check digit' },
      ],
    });
  });

  it('refuses a file Netcash loaded in part (Ignore errors on), and a report of another batch', () => {
    const partly = readLoadReport(
      report(
        '###BEGIN\tB7S1773100800\tSUCCESSFUL WITH ERRORS\t09:15 AM',
        'PM000008\tLine :4\tInvalid account',
        '###END\t09:16 AM',
      ),
      FILE,
    );
    expect(partly).toMatchObject({
      outcome: 'rejected',
      lineErrors: [{ lineRef: '42', message: 'Invalid account' }],
    });
    expect((partly as { message: string }).message).toMatch(
      /Ignore errors.*delete the batch in Netcash’s portal/,
    );
    expect(() =>
      readLoadReport(report('###BEGIN\tB9S1\tSUCCESSFUL\t09:15 AM', '###END\t09:16 AM'), FILE),
    ).toThrow(/of batch B9S1, not B7S1773100800/);
    expect(() => readLoadReport('SUCCESSFUL', FILE)).toThrow(/###BEGIN/);
  });

  it('masks every run of seven digits or more, and nothing shorter', () => {
    expect(maskedDigits('account 62001234567, line 3, branch 250655')).toBe(
      'account …567, line 3, branch 250655',
    );
  });
});

describe("a netcash gateway's settings", () => {
  it('ask for the Account service key unless files go by hand, and take uploadThroughWebService as true or false', () => {
    const fields = (settings: Record<string, unknown>) =>
      netcashSettingsProblems(settings).map((p) => p.field);
    expect(fields({ serviceKey: SERVICE_KEY })).toEqual(['Settings.accountServiceKey']);
    expect(fields(SETTINGS)).toEqual([]);
    expect(fields({ serviceKey: SERVICE_KEY, uploadThroughWebService: false })).toEqual([]);
    expect(fields({ ...SETTINGS, uploadThroughWebService: 'no', accountServiceKey: 'key' })).toEqual([
      'Settings.uploadThroughWebService',
      'Settings.accountServiceKey',
    ]);
  });
});
