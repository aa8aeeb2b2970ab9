import { addBusinessDays } from '../../../src/core/bankingDays.ts';
import { niwsChecks } from './niwsStandIn.ts';
import type { NiwsMethodLayout } from './niwsStandIn.ts';

/**
 * Netcash's NIWS_NIF uploads and statements, as a Netcash account would answer them (docs/gateways/netcash.md,
 * "Uploading through NIWS_NIF"), for the NIWS stand-in (niwsStandIn.ts):
 * - BatchFileUpload(ServiceKey, File): the File must be a well-formed NIF file (H, K, T..., F; the header's service
 *   key the ServiceKey sent; the footer's count and total those of the T records), else a problem is kept and 102
 *   (parameter error) answered; answered with a file token, or 100 (authentication failure) by the knob.
 * - RequestFileUploadReport(ServiceKey, FileToken): the load report as api.netcash.co.za's "Load Report" page lays it
 *   out (###BEGIN, one message per refused line, ###END; tab-delimited, LF), or FILE NOT READY.
 * - RequestMerchantStatement(ServiceKey, FromActionDate): a polling id; RetrieveMerchantStatement(ServiceKey,
 *   PollingId): the statement of that day, or FILE NOT READY. The statement's records are those of the bulk statement
 *   page's "Statement detail" (date, type, id, description, cents, sign, VAT, Extra 1-3), the account's balances first
 *   and last; a loaded file's lines are collected (TDD) on its action date, an unpaid (DRU, its code in the
 *   description) two business days after.
 * NOT PUBLISHED, chosen here and named in docs/gateways/netcash.md ("Checked by hand before a first real run"): what
 * Netcash answers a malformed file (102 here), whether a load report's line numbers count the header (they do here:
 * line 1 is H), the load report's message words, the polling id's form, the statement's balance records and
 * descriptions, and that a loaded batch is authorised (here it always is, as a person would in the portal).
 */

export interface NifUploadKnobs {
  /** The account's debit-order service key (the H record's and BatchFileUpload's) and its Account service key. */
  serviceKey: string;
  accountServiceKey: string;
  /** A T record whose bank account number is here is refused in the load report, with this message. */
  refusedAccounts?: ReadonlyMap<string, string>;
  /** A T record whose bank account number is here is collected, then unpaid with this SA code. */
  unpaidAccounts?: ReadonlyMap<string, string>;
  /** The first load report asked for of each file is not ready. */
  reportNotReadyFirst?: boolean;
  /** BatchFileUpload answers 100: the service key is not the account's. */
  authenticationFails?: boolean;
}

/** A T record as the stand-in reads it: its line in the file, and its fields by the K record's ids. */
interface UploadedLine {
  line: number;
  fields: Readonly<Record<string, string>>;
}

export interface UploadedFile {
  token: string;
  batchName: string;
  actionDate: string;
  lines: UploadedLine[];
  reportsAsked: number;
  loaded: boolean;
}

const PAGES = {
  upload: 'https://api.netcash.co.za/input-template',
  report: 'https://api.netcash.co.za/?p=318',
  statement: 'https://api.netcash.co.za/compulsory-integration/netcash-statement/',
};

const isoOf = (ccyymmdd: string) => `${ccyymmdd.slice(0, 4)}-${ccyymmdd.slice(4, 6)}-${ccyymmdd.slice(6, 8)}`;

/** The stand-in's Netcash account: the files uploaded to it and the statements asked of it. */
export class NetcashNifAccount {
  /** Departures from the layouts that the HTTP checks of niwsStandIn.ts cannot see (the File's content). */
  readonly problems: string[] = [];
  readonly files: UploadedFile[] = [];
  private readonly polls = new Map<string, { day: string; asked: number }>();

  constructor(readonly knobs: NifUploadKnobs) {}

  layouts(): NiwsMethodLayout[] {
    const key = { name: 'ServiceKey', check: niwsChecks.guid };
    return [
      {
        service: 'nif',
        method: 'BatchFileUpload',
        parameters: [key, { name: 'File', check: niwsChecks.nonEmpty }],
        source: PAGES.upload,
        answer: (values) => this.upload(values.ServiceKey!, values.File!),
      },
      {
        service: 'nif',
        method: 'RequestFileUploadReport',
        parameters: [key, { name: 'FileToken', check: niwsChecks.nonEmpty }],
        source: PAGES.report,
        answer: (values) => this.report(values.ServiceKey!, values.FileToken!),
      },
      {
        service: 'nif',
        method: 'RequestMerchantStatement',
        parameters: [key, { name: 'FromActionDate', check: niwsChecks.date }],
        source: PAGES.statement,
        answer: (values) => this.requestStatement(values.ServiceKey!, values.FromActionDate!),
      },
      {
        service: 'nif',
        method: 'RetrieveMerchantStatement',
        parameters: [key, { name: 'PollingId', check: niwsChecks.nonEmpty }],
        source: PAGES.statement,
        answer: (values) => this.retrieveStatement(values.ServiceKey!, values.PollingId!),
      },
    ];
  }

  private upload(serviceKey: string, file: string): string {
    if (this.knobs.authenticationFails || serviceKey !== this.knobs.serviceKey) return '100';
    const read = readNif(file, serviceKey);
    if (typeof read === 'string') {
      this.problems.push(`BatchFileUpload.File: ${read}`);
      return '102';
    }
    const token = `20000000.${String(2550236530 + this.files.length)}.0483.2.2`;
    this.files.push({ token, ...read, reportsAsked: 0, loaded: false });
    return token;
  }

  private report(serviceKey: string, token: string): string {
    const file = this.files.find((candidate) => candidate.token === token);
    if (serviceKey !== this.knobs.serviceKey) return '100';
    if (!file) {
      this.problems.push(`RequestFileUploadReport: no file ${token} was uploaded`);
      return '102';
    }
    file.reportsAsked += 1;
    if (this.knobs.reportNotReadyFirst && file.reportsAsked === 1) return 'FILE NOT READY';
    const refused = file.lines.flatMap((line) => {
      const why = this.knobs.refusedAccounts?.get(line.fields['136'] ?? '');
      return why ? [[line.fields['101'], `Line :${line.line}`, why].join('\t')] : [];
    });
    file.loaded = refused.length === 0;
    const result = file.loaded ? 'SUCCESSFUL' : 'UNSUCCESSFUL';
    return [`###BEGIN\t${file.batchName}\t${result}\t09:15 AM`, ...refused, '###END\t09:16 AM'].join('\n');
  }

  private requestStatement(serviceKey: string, fromActionDate: string): string {
    if (serviceKey !== this.knobs.accountServiceKey) return '100';
    const pollingId = `6366824640000${String(this.polls.size).padStart(5, '0')}`;
    this.polls.set(pollingId, { day: isoOf(fromActionDate), asked: 0 });
    return pollingId;
  }

  private retrieveStatement(serviceKey: string, pollingId: string): string {
    if (serviceKey !== this.knobs.accountServiceKey) return '100';
    const poll = this.polls.get(pollingId);
    if (!poll) {
      this.problems.push(`RetrieveMerchantStatement: no statement was asked for under ${pollingId}`);
      return '102';
    }
    poll.asked += 1;
    return this.statementOf(poll.day);
  }

  /** The statement days asked for, in the order asked. */
  statementDaysAsked(): string[] {
    return [...this.polls.values()].map((poll) => poll.day);
  }

  /** The day's statement: the balances, each loaded line collected on its action date, each unpaid two days on. */
  statementOf(day: string): string {
    const date = day.replaceAll('-', '');
    let id = 70000;
    const entry = (type: string, description: string, cents: string, sign: string, extra1 = '') =>
      [date, type, String((id += 1)), description, cents, sign, '0', extra1, '', '', 'Debtors'].join('\t');
    const entries = [entry('OBL', 'Opening balance', '0', '+')];
    for (const file of this.files.filter((candidate) => candidate.loaded)) {
      for (const { fields } of file.lines) {
        const extra1 = fields['301'] ?? '';
        if (file.actionDate === day)
          entries.push(entry('TDD', 'Dated debit order', fields['162']!, '+', extra1));
        const code = this.knobs.unpaidAccounts?.get(fields['136'] ?? '');
        if (code && addBusinessDays(file.actionDate, 2, 'debit_order') === day) {
          entries.push(entry('DRU', `Debit order unpaid - Code: ${code}`, fields['162']!, '-', extra1));
        }
      }
    }
    entries.push(entry('CBL', 'Closing balance', '0', '+'));
    return `${entries.join('\r\n')}\r\n`;
  }
}

/**
 * A NIF file as Netcash's input template lays it out, or what is wrong with it: H (7 fields, the ServiceKey sent,
 * version 1, an instruction, a batch name, CCYYMMDD, a GUID), K (field ids), T records of K's width, F (the T
 * records' count and the sum of their amounts, 162, in cents; 9999).
 */
export function readNif(
  file: string,
  serviceKey: string,
): Omit<UploadedFile, 'token' | 'reportsAsked' | 'loaded'> | string {
  const records = file.split(/\r?\n/);
  if (records.at(-1) === '') records.pop();
  const fields = records.map((record) => record.split('\t'));
  const [header, key] = fields;
  const footer = fields.at(-1);
  if (header?.[0] !== 'H' || header.length !== 7) return 'the first record is not a 7-field H record';
  if (header[1] !== serviceKey) return `the header's service key ${header[1]} is not the ServiceKey sent`;
  if (header[2] !== '1' || !['TwoDay', 'Sameday'].includes(header[3]!))
    return 'the header is not version 1 of a debit-order batch';
  if (!header[4] || !/^\d{8}$/.test(header[5]!) || niwsChecks.guid(header[6]!) !== null) {
    return "the header's batch name, action date or software vendor key is not Netcash's";
  }
  if (key?.[0] !== 'K' || !key.includes('162') || !key.includes('101'))
    return 'the second record is not a K record';
  if (footer?.[0] !== 'F' || fields.length < 4) return 'the last record is not an F record';
  const transactions = fields.slice(2, -1);
  if (transactions.some((record) => record[0] !== 'T' || record.length !== key.length)) {
    return 'a record between K and F is not a T record of the key’s width';
  }
  const lines = transactions.map((record, index) => ({
    line: index + 3,
    fields: Object.fromEntries(key.slice(1).map((id, at) => [id, record[at + 1]!])),
  }));
  const total = lines.reduce((sum, line) => sum + Number(line.fields['162']), 0);
  if (lines.some((line) => !/^[1-9]\d*$/.test(line.fields['162']!)))
    return 'an amount (162) is not whole cents';
  if (footer.join('\t') !== ['F', String(lines.length), String(total), '9999'].join('\t')) {
    return `the footer ${footer.join(' ')} is not F ${lines.length} ${total} 9999`;
  }
  return { batchName: header[4], actionDate: isoOf(header[5]!), lines };
}
