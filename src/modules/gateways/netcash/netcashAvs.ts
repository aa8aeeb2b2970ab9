import type { BankAccountToValidate, BankValidationResult, GatewayDriver } from '../gatewayContract.ts';
import type { FailureReason } from '../failureReasons.ts';
import { NiwsFaultError } from './niwsClient.ts';
import type { NiwsClient, NiwsParameters, NiwsResult } from './niwsClient.ts';
import { ownEntry } from '../../../core/ownEntry.ts';

/**
 * Netcash's account verification service, AVS (docs/gateways/netcash.md, "Account verification"): whether an SA bank
 * account exists, is open, accepts debits and belongs to the ID number given, asked of the debtor's bank through
 * NIWS_NIF (api.netcash.co.za, "AVS real-time" and "AVS" bulk). `AVSRealtimeQuery` answers at once where the bank
 * answers in real time; otherwise Netcash sends the question to the bank in bulk (code 328, AVSSentToBankOffline)
 * with a file token, and `RequestAVSReport` answers "FILE NOT READY" until the bank has answered. The parameters and
 * the answer's fields are the service's schema (its WSDL), as public clients generated from it name them.
 */

export const AVS_REALTIME = 'AVSRealtimeQuery';
export const AVS_REPORT = 'RequestAVSReport';

/** MandateOptions.BankAccountType, the schema's enumeration: our account types as Netcash's. */
const AVS_ACCOUNT_TYPES: Readonly<Record<string, string>> = {
  cheque: 'Current',
  current: 'Current',
  checking: 'Current',
  savings: 'Savings',
  transmission: 'Transmission',
};

/**
 * AVSRealtimeQuery's parameters in the schema's order (WCF reads a sequence in order), those we leave empty left
 * out (all are optional in the schema): Extra 1-3, Initials, PhoneNumber, Email. The holder's name goes whole as
 * EnquiryName. Only a South-African ID number is sent, with IsIdNumber true: the service's other kind of number is a
 * company registration number (IsIdNumber false), so a passport number is not sent and the bank checks the account
 * without its holder.
 */
export function avsRealtimeParameters(serviceKey: string, account: BankAccountToValidate): NiwsParameters {
  const idNumber = account.identity?.kind === 'sa_id' ? account.identity.number : null;
  return [
    ['ServiceKey', serviceKey],
    ['AccountReference', account.reference ?? ''],
    ['BankAccountNumber', account.accountNumber ?? ''],
    ['BranchCode', account.branchCode ?? ''],
    ['BankAccountType', ownEntry(AVS_ACCOUNT_TYPES, (account.accountType ?? '').toLowerCase()) ?? 'Current'],
    ['EnquiryName', account.accountHolder],
    ...(idNumber === null
      ? []
      : ([
          ['IdNumber', idNumber],
          ['IsIdNumber', 'true'],
        ] as const)),
  ];
}

/**
 * What makes an account fail verification, in the order they are read: each an AVSOptions.MatchIndicator (`Valid`,
 * `Invalid`, `NotApplicable`). Only `Invalid` is held against the account; the names (LastNameMatch, InitialMatch),
 * e-mail and phone are not checked (the holder's name is one field here, written as the business wrote it).
 */
const CHECKS: readonly (readonly [field: string, reason: FailureReason, words: string])[] = [
  ['BankAccountNumberValid', 'invalid_account', 'the bank does not know the account number at this branch'],
  ['AccountActive', 'account_closed', 'the account is not open'],
  ['AcceptsDebits', 'debits_not_allowed', 'the account does not accept debits'],
  ['IdNumberMatch', 'account_holder_mismatch', 'the ID number is not the account holder’s'],
];

/** The verdict on the bank's indicators: the first `Invalid` declines; `ok` otherwise, with what was unconfirmed. */
export function avsVerdict(indicators: Readonly<Record<string, string>>): BankValidationResult {
  for (const [field, reason, words] of CHECKS) {
    if (indicators[field] === 'Invalid') {
      return { outcome: 'declined', reason, rawCode: `${field}=Invalid`, detail: words };
    }
  }
  const unconfirmed = CHECKS.map(([field]) => field).filter((field) => indicators[field] !== 'Valid');
  return {
    outcome: 'ok',
    detail:
      unconfirmed.length === 0 ? 'full match' : `matched; the bank did not confirm ${unconfirmed.join(', ')}`,
  };
}

/** The web service's answer codes (api.netcash.co.za, "Response codes") that AVS may give. */
const CODE_NAMES: Readonly<Record<string, string>> = {
  '100': 'Authentication',
  '106': 'IncorrectServiceKeyOrInactive',
  '200': 'General exception',
  '203': 'Failed',
  '311': 'ServiceKeyNotValidForService',
  '328': 'AVSSentToBankOffline',
};

const textOf = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/**
 * AVSRealtimeQuery's answer (AVSRealtimeQueryResponse): `000` with the bank's indicators is the verdict; `328` (or
 * OfflineRequest true) is the question sent on in bulk, pending under its FileToken; any other code is Netcash not
 * asking the bank (a wrong key, a failure), pending without a reference: asked again later.
 */
export function readAvsAnswer(result: NiwsResult): BankValidationResult {
  if (typeof result === 'string') return notAsked(`${AVS_REALTIME} answered no AVS result`);
  const code = textOf(result['ErrorCode']);
  const fileToken = textOf(result['FileToken']);
  if (code === '328' || textOf(result['OfflineRequest']) === 'true') {
    if (fileToken === '') return notAsked(`${AVS_REALTIME} answered ${code} without a FileToken`);
    return { outcome: 'pending', providerRef: fileToken, detail: 'sent to the bank in bulk (328)' };
  }
  if (code !== '000')
    return notAsked(`Netcash answered ${code} (${ownEntry(CODE_NAMES, code) ?? 'unknown code'})`);
  const indicators = Object.fromEntries(CHECKS.map(([field]) => [field, textOf(result[field])]));
  return avsVerdict(indicators);
}

const notAsked = (detail: string): BankValidationResult => ({ outcome: 'pending', detail });

/**
 * RequestAVSReport's answer for our enquiry: `FILE NOT READY` while the bank has not answered. The report is read
 * as tab-delimited text whose first line names its columns, one enquiry a line found by AccountReference, the
 * bank's indicators under the real-time answer's names: the layout public pages did not show, to be checked with
 * Netcash's first real report (docs/gateways/netcash.md, "Checked by hand before a first real run"). A report we
 * cannot read leaves the verification pending; its text is never repeated (it holds ID numbers).
 */
export function readAvsReport(
  result: NiwsResult,
  providerRef: string,
  reference: string,
): BankValidationResult {
  const report = typeof result === 'string' ? result : '';
  if (report.trim() === 'FILE NOT READY')
    return { outcome: 'pending', providerRef, detail: 'FILE NOT READY' };
  const [head, ...lines] = report.split(/\r?\n/).map((line) => line.split('\t').map((cell) => cell.trim()));
  const at = head?.indexOf('AccountReference') ?? -1;
  const line = at < 0 ? undefined : lines.find((cells) => cells[at] === reference);
  if (!head || !line) {
    return {
      outcome: 'pending',
      providerRef,
      detail: `${AVS_REPORT}: no line for ${reference} that we read`,
    };
  }
  return avsVerdict(Object.fromEntries(head.map((name, i) => [name, line[i] ?? ''])));
}

/** A SOAP fault is Netcash not answering the question: pending, asked again later. */
async function unlessFault(
  method: string,
  asked: () => Promise<BankValidationResult>,
): Promise<BankValidationResult> {
  try {
    return await asked();
  } catch (error) {
    if (!(error instanceof NiwsFaultError)) throw error;
    return notAsked(`${method} failed: ${error.message}`);
  }
}

/**
 * The netcash driver's AVS operations, when the gateway's settings hold the key Netcash's AVS takes
 * (`riskServiceKey`, the risk reports service key); none otherwise, and the gateway checks bank accounts offline.
 */
export function netcashAvs(
  niws: NiwsClient,
  settings: Readonly<Record<string, unknown>>,
): Pick<GatewayDriver, 'validateBankAccount' | 'bankValidationOutcome'> {
  const key = settings['riskServiceKey'];
  if (typeof key !== 'string' || key === '') return {};
  return {
    async validateBankAccount(_target, account) {
      if (account.method !== 'debit_order') {
        return { outcome: 'ok', detail: 'Netcash verifies South-African debit-order accounts only' };
      }
      return unlessFault(AVS_REALTIME, async () =>
        readAvsAnswer(await niws.call('nif', AVS_REALTIME, avsRealtimeParameters(key, account))),
      );
    },
    async bankValidationOutcome(_target, providerRef, reference) {
      return unlessFault(AVS_REPORT, async () => {
        const parameters: NiwsParameters = [
          ['ServiceKey', key],
          ['FileToken', providerRef],
        ];
        return readAvsReport(await niws.call('nif', AVS_REPORT, parameters), providerRef, reference);
      });
    },
  };
}
