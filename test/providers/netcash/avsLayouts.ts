import { niwsChecks } from './niwsStandIn.ts';
import type { NiwsMethodLayout } from './niwsStandIn.ts';

/**
 * Netcash's account verification (AVS) for the NIWS stand-in (niwsStandIn.ts): AVSRealtimeQuery and
 * RequestAVSReport on NIWS_NIF, their parameters by name and in the order of the service's schema (the NIWS_NIF
 * WSDL, as clients generated from it list them), each value checked against what the pages say of it, and answered
 * as "AVS real-time" and "AVS" (bulk) describe: the bank's indicators (AVSOptions.MatchIndicator: Valid, Invalid,
 * NotApplicable) in an AVSRealtimeQueryResponse, or code 328 (AVSSentToBankOffline, the web service's response codes)
 * with a file token when the bank does not answer in real time, and "FILE NOT READY" until the bulk answer is there.
 *
 * The bank behind it, chosen by the account (its knobs):
 * - any account: a full match (exists, open, takes debits; the ID number, when sent, is the holder's);
 * - account number 62000000012: closed (AccountActive Invalid);
 * - account number 62000000013: belongs to someone else (IdNumberMatch Invalid when an ID number is sent);
 * - branch code 462005 (Bidvest Bank, which the bulk page lists as answering in batch only): sent to the bank in
 *   bulk; the same answers once `answerBulk()` has run, in the report layout docs/gateways/netcash.md describes
 *   (the one part of this file the pages did not show: "Checked by hand before a first real run").
 */

export const AVS_RESULT_NAMESPACE = 'http://schemas.datacontract.org/2004/07/NC.DG.TMS.C.WCF.NIWS';
export const CLOSED_ACCOUNT = '62000000012';
export const SOMEONE_ELSES_ACCOUNT = '62000000013';
/** Bidvest Bank's universal branch code: AVS in batch only. */
export const BULK_ONLY_BRANCH = '462005';

const SOURCE_REALTIME = 'https://api.netcash.co.za/value-added-services/avs-real-time';
const SOURCE_BULK = 'https://api.netcash.co.za/value-added-services/avs';

/** The indicators the stand-in's bank gives, in the answer's (alphabetical, schema) order. */
const INDICATORS = [
  'AcceptsCredits',
  'AcceptsDebits',
  'AccountActive',
  'AccountDormant',
  'BankAccountNumberValid',
  'EmailMatch',
] as const;

type Indicators = Record<string, 'Valid' | 'Invalid' | 'NotApplicable'>;

/** What the bank says of an enquiry. */
function bankAnswer(values: Readonly<Record<string, string>>): Indicators {
  const number = values.BankAccountNumber;
  const idSent = (values.IdNumber ?? '') !== '';
  return {
    AcceptsCredits: 'Valid',
    AcceptsDebits: 'Valid',
    AccountActive: number === CLOSED_ACCOUNT ? 'Invalid' : 'Valid',
    AccountDormant: 'Invalid',
    BankAccountNumberValid: 'Valid',
    EmailMatch: 'NotApplicable',
    IdNumberMatch: !idSent ? 'NotApplicable' : number === SOMEONE_ELSES_ACCOUNT ? 'Invalid' : 'Valid',
    InitialMatch: 'NotApplicable',
    LastNameMatch: 'Valid',
    PeriodActive: 'Valid',
    PhoneNumberMatch: 'NotApplicable',
    TaxRefMatch: 'NotApplicable',
  };
}

/** The stand-in's bank: the enquiries it answers in bulk, by file token, until `answerBulk` answers them. */
export class AvsBank {
  private readonly bulk = new Map<string, { reference: string; indicators: Indicators; ready: boolean }>();

  /** The bank answers every enquiry it was sent in bulk so far. */
  answerBulk(): void {
    for (const enquiry of this.bulk.values()) enquiry.ready = true;
  }

  sendInBulk(values: Readonly<Record<string, string>>): string {
    const token = `${20000000 + this.bulk.size}.2550236530.0483.2.${this.bulk.size + 1}`;
    this.bulk.set(token, {
      reference: values.AccountReference!,
      indicators: bankAnswer(values),
      ready: false,
    });
    return token;
  }

  /** The report of a file token: "FILE NOT READY", or a header line and the enquiry's line, tab-delimited. */
  report(token: string): string {
    const enquiry = this.bulk.get(token);
    if (!enquiry?.ready) return 'FILE NOT READY';
    const columns = Object.keys(enquiry.indicators);
    return [
      ['AccountReference', ...columns].join('\t'),
      [enquiry.reference, ...columns.map((column) => enquiry.indicators[column])].join('\t'),
    ].join('\r\n');
  }
}

const digits = (min: number, max: number) => (value: string) =>
  new RegExp(`^\\d{${min},${max}}$`).test(value) ? null : `not ${min} to ${max} digits`;

/** An AVSRealtimeQueryResponse: ErrorCode (its base, NIWSResponseContainer) first, then its fields in order. */
function realtimeAnswer(code: string, indicators: Indicators, fileToken: string, offline: boolean) {
  const field = (name: string) => [name, indicators[name] ?? 'NotApplicable'] as const;
  return {
    namespace: AVS_RESULT_NAMESPACE,
    fields: [
      ['ErrorCode', code] as const,
      ...INDICATORS.map(field),
      ['FileToken', fileToken] as const,
      field('IdNumberMatch'),
      field('InitialMatch'),
      field('LastNameMatch'),
      ['OfflineRequest', offline ? 'true' : 'false'] as const,
      field('PeriodActive'),
      field('PhoneNumberMatch'),
      field('TaxRefMatch'),
    ],
  };
}

/** The AVS methods' layouts, answered by `bank`. */
export function avsLayouts(bank: AvsBank): NiwsMethodLayout[] {
  return [
    {
      service: 'nif',
      method: 'AVSRealtimeQuery',
      source: SOURCE_REALTIME,
      parameters: [
        { name: 'ServiceKey', check: niwsChecks.guid },
        { name: 'AccountReference', check: niwsChecks.nonEmpty },
        { name: 'Extra1', optional: true },
        { name: 'Extra2', optional: true },
        { name: 'Extra3', optional: true },
        // The debit-order layout's account number: 1 to 11 digits; a branch code is 6.
        { name: 'BankAccountNumber', check: digits(1, 11) },
        { name: 'BranchCode', check: digits(6, 6) },
        { name: 'BankAccountType', check: niwsChecks.oneOf('Current', 'Savings', 'Transmission') },
        { name: 'EnquiryName', check: niwsChecks.nonEmpty },
        { name: 'Initials', optional: true },
        // An SA ID number with IsIdNumber true; a company registration number with false.
        { name: 'IdNumber', optional: true, check: digits(13, 13) },
        { name: 'IsIdNumber', optional: true, check: niwsChecks.oneOf('true', 'false') },
        { name: 'PhoneNumber', optional: true },
        { name: 'Email', optional: true },
      ],
      answer(values) {
        if (values.BranchCode === BULK_ONLY_BRANCH) {
          return realtimeAnswer('328', {}, bank.sendInBulk(values), true);
        }
        return realtimeAnswer('000', bankAnswer(values), '', false);
      },
    },
    {
      service: 'nif',
      method: 'RequestAVSReport',
      source: SOURCE_BULK,
      parameters: [
        { name: 'ServiceKey', check: niwsChecks.guid },
        { name: 'FileToken', check: niwsChecks.nonEmpty },
      ],
      answer: (values) => bank.report(values.FileToken!),
    },
  ];
}
