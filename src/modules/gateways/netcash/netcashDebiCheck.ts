import { minorToDecimalText } from '../../../core/money.ts';
import type {
  DebiCheckAmendment,
  DebiCheckAnswer,
  DebiCheckChange,
  DebiCheckToAuthenticate,
  GatewayDriver,
} from '../gatewayContract.ts';
import { NiwsFaultError } from './niwsClient.ts';
import type { NiwsClient, NiwsParameters, NiwsResult } from './niwsClient.ts';
import { ownEntry } from '../../../core/ownEntry.ts';

/**
 * DebiCheck mandates through Netcash's NIWS_NIF service (docs/gateways/netcash.md, "DebiCheck"):
 * - `DebiCheckAuthenticate` (TT1, real time: api.netcash.co.za, "DebiCheck TT1 synchronous") asks the debtor's
 *   bank to authenticate the mandate; the bank answers within 120 seconds, or later (a delayed answer);
 * - `DebiCheckAuthenticationCurrentStatus` ("DebiCheck Trace") tells where an authentication is now;
 * - `DebiCheckAmendAuthentication` changes an authenticated mandate's amounts, in cents;
 * - `DebiCheckCancelAuthentication` cancels one with the bank's reason code.
 * Parameter names and their order are the service's schema's (WCF reads a sequence in order): `collectionDayCode`
 * and `reasonCode` are lower-case there. DebiCheckAuthenticate takes rands (`10.00`), the amendment cents.
 */

/** The operations this file gives the netcash driver. */
export type NetcashDebiCheckOperations = Required<
  Pick<GatewayDriver, 'authenticateDebiCheck' | 'debiCheckStatus' | 'amendDebiCheck' | 'cancelDebiCheck'>
>;

/** A DebiCheck mandate template id as Netcash's portal issues it (its pages' example: NCDCT000000001). */
export const DEBICHECK_TEMPLATE_ID = /^NCDCT\d{9}$/;

/** Netcash's answer codes (api.netcash.co.za, "Web service response codes") the DebiCheck calls may give. */
const RESPONSE_CODES: Readonly<Record<string, string>> = {
  '100': 'authentication failed: the service key is wrong',
  '101': 'a date is badly formed',
  '102': 'a parameter is wrong, or the date is invalid',
  '103': 'an amount is invalid',
  '106': 'the service key is wrong or inactive',
  '200': 'general service error: contact Netcash support',
  '202': 'the authentication was not found for this account',
  '311': 'the service key is not for the debit-order service',
  '316': "the Netcash account's compliance process is incomplete",
  '326': 'the authentication is not in a state that allows it (invalid DebiCheck contract reference)',
  '327': 'invalid DebiCheck cancellation reason code',
  '329': 'the DebiCheck amendment was rejected',
};

/** Our account types as Netcash's BankAccountType names them: cheque and current are one. */
const ACCOUNT_TYPES: Readonly<Record<string, string>> = {
  cheque: 'Current',
  current: 'Current',
  checking: 'Current',
  savings: 'Savings',
  transmission: 'Transmission',
};

const SUCCESS = '000';

/** Rands as DebiCheckAuthenticate takes them: a decimal with two places. */
const rands = (minor: number) => minorToDecimalText(minor, 'ZAR');
const ccyymmdd = (date: string) => date.replaceAll('-', '');

export function netcashDebiCheckOperations(
  niws: NiwsClient,
  settings: Readonly<Record<string, unknown>>,
): NetcashDebiCheckOperations {
  const serviceKey = typeof settings['serviceKey'] === 'string' ? settings['serviceKey'] : '';
  const templateId =
    typeof settings['debiCheckMandateTemplateId'] === 'string' ? settings['debiCheckMandateTemplateId'] : '';
  // A SOAP fault is Netcash refusing the request as it stands (a parameter it will not take): nothing reached the
  // bank, and the fault's words say why.
  const call = (method: string, parameters: NiwsParameters): Promise<NiwsResult | NiwsFaultError> =>
    niws.call('nif', method, parameters).catch((error: unknown) => {
      if (error instanceof NiwsFaultError) return error;
      throw error;
    });
  return {
    async authenticateDebiCheck(_target, mandate) {
      if (!DEBICHECK_TEMPLATE_ID.test(templateId)) {
        return {
          outcome: 'refused',
          rawCode: 'settings',
          detail:
            'the gateway has no debiCheckMandateTemplateId (Netcash: Debit orders > DebiCheck templates)',
        };
      }
      const answer = await call(
        'DebiCheckAuthenticate',
        authenticateParameters(serviceKey, templateId, mandate),
      );
      return answer instanceof NiwsFaultError ? faultOf(answer) : authenticationOf(answer);
    },
    async debiCheckStatus(_target, contractReference) {
      const answer = await call('DebiCheckAuthenticationCurrentStatus', [
        ['ServiceKey', serviceKey],
        ['ContractReference', contractReference],
      ]);
      return answer instanceof NiwsFaultError ? faultOf(answer) : currentStatusOf(answer, contractReference);
    },
    async amendDebiCheck(_target, contractReference, amendment: DebiCheckAmendment) {
      const answer = await call('DebiCheckAmendAuthentication', [
        ['ServiceKey', serviceKey],
        ['ContractReference', contractReference],
        ['CollectionAmountInCents', String(amendment.amountMinor)],
        ['MaximumCollectionAmountInCents', String(amendment.maxAmountMinor)],
      ]);
      return answer instanceof NiwsFaultError ? faultOf(answer) : changeOf(answer);
    },
    async cancelDebiCheck(_target, contractReference, reasonCode) {
      const answer = await call('DebiCheckCancelAuthentication', [
        ['ServiceKey', serviceKey],
        ['ContractReference', contractReference],
        ['reasonCode', reasonCode],
      ]);
      return answer instanceof NiwsFaultError ? faultOf(answer) : changeOf(answer);
    },
  };
}

/** DebiCheckAuthenticate's parameters, in the schema's order. */
export function authenticateParameters(
  serviceKey: string,
  templateId: string,
  mandate: DebiCheckToAuthenticate,
): NiwsParameters {
  const differs = mandate.firstAmountMinor !== null && mandate.firstAmountMinor !== mandate.amountMinor;
  return [
    ['ServiceKey', serviceKey],
    ['AccountReference', mandate.accountReference],
    ['DebiCheckMandateTemplateId', templateId],
    // The page's 1 (South-African ID) and 0 (passport): xs:boolean's own digits.
    ['IsIdNumber', mandate.idKind === 'sa_id' ? '1' : '0'],
    ['DebtorIdentification', mandate.idNumber],
    ['AccountName', mandate.accountName],
    ['BankAccountName', mandate.accountHolder],
    ['BranchCode', mandate.branchCode],
    ['BankAccountNumber', mandate.accountNumber],
    ['BankAccountType', ownEntry(ACCOUNT_TYPES, mandate.accountType.toLowerCase()) ?? mandate.accountType],
    ['MobileNumber', mandate.mobileNumber],
    ['EmailAddress', mandate.email ?? ''],
    ['CollectionAmount', rands(mandate.amountMinor)],
    ['FirstCollectionDiffers', differs ? '1' : '0'],
    ['FirstCollectionAmount', rands(differs ? mandate.firstAmountMinor! : mandate.amountMinor)],
    ['FirstCollectionDate', ccyymmdd(mandate.firstCollectionDate)],
    ['collectionDayCode', `MNTH_${String(mandate.collectionDay).padStart(2, '0')}`],
  ];
}

const faultOf = (fault: NiwsFaultError) => ({
  outcome: 'refused' as const,
  rawCode: 'fault',
  detail: fault.message,
});

/** A structured answer's field as text ('' when absent or nil). */
function field(answer: NiwsResult, name: string): string {
  if (typeof answer === 'string') return '';
  const value = answer[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** The answer's Messages (an array of strings in the data contract), joined. */
function messagesOf(answer: NiwsResult): string {
  if (typeof answer === 'string') return '';
  const messages = answer['Messages'];
  if (typeof messages !== 'object' || messages === null) return '';
  const items = (messages as Record<string, unknown>)['string'];
  return (Array.isArray(items) ? items : [items]).filter((item) => typeof item === 'string').join('; ');
}

/** A refusal in Netcash's words: its code, what the codes' page says of it, and the answer's messages. */
function refusal(code: string, answer: NiwsResult): DebiCheckAnswer & DebiCheckChange {
  const words = [ownEntry(RESPONSE_CODES, code) ?? `answer code ${code || '(none)'}`, messagesOf(answer)];
  return { outcome: 'refused', rawCode: code, detail: words.filter(Boolean).join(': ') };
}

/**
 * DebiCheckAuthenticate's answer: ErrorCode 000 once Netcash sent the request to the bank; Status Accepted or
 * Rejected when the bank answered within the call; any other Status (none) while the bank has not answered yet.
 */
function authenticationOf(answer: NiwsResult): DebiCheckAnswer {
  const code = field(answer, 'ErrorCode');
  if (code !== SUCCESS) return refusal(code, answer);
  const contractReference = field(answer, 'ContractReference') || null;
  const bankCodes = ['BankResponseCode', 'BankservResponseCode', 'ClientResponseCode']
    .map((name) => [name, field(answer, name)])
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name} ${value}`);
  const detail = [...bankCodes, messagesOf(answer)].filter(Boolean).join('; ') || null;
  return { outcome: statusOutcome(field(answer, 'Status'), ''), contractReference, detail };
}

/** The trace's answer: the authentication's Status, DateCancelled once cancelled (with its reason). */
function currentStatusOf(answer: NiwsResult, asked: string): DebiCheckAnswer {
  const code = field(answer, 'ErrorCode');
  if (code !== SUCCESS) return refusal(code, answer);
  const status = field(answer, 'Status');
  const cancelled = field(answer, 'DateCancelled');
  const reason = field(answer, 'CancellationReason');
  return {
    outcome: statusOutcome(status, cancelled),
    contractReference: field(answer, 'ContractReference') || asked,
    detail:
      [status && `Status ${status}`, reason && `cancelled: ${reason}`].filter(Boolean).join('; ') || null,
  };
}

/**
 * Netcash's Status words as our outcomes: Accepted (the pages' word for an approved authentication) and Rejected
 * are documented; the others are read by their sense until the sandbox shows them (docs/gateways/netcash.md,
 * "Checked by hand before a first real run").
 */
function statusOutcome(
  status: string,
  dateCancelled: string,
): Extract<DebiCheckAnswer, { contractReference: string | null }>['outcome'] {
  const word = status.toLowerCase();
  if (dateCancelled !== '' || word.startsWith('cancel')) return 'cancelled';
  if (word === 'accepted' || word === 'authenticated' || word === 'approved') return 'authenticated';
  if (word === 'rejected' || word === 'declined') return 'declined';
  if (word.startsWith('expired') || word === 'timeout' || word === 'timedout') return 'expired';
  return 'pending';
}

/** An amendment's or cancel's answer: a code (cancel) or a structure with ErrorCode (amendment). */
function changeOf(answer: NiwsResult): DebiCheckChange {
  const code = typeof answer === 'string' ? answer.trim() : field(answer, 'ErrorCode');
  if (code === SUCCESS) return { outcome: 'ok' };
  return refusal(code, answer) as DebiCheckChange;
}
