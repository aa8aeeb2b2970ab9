import { identityNumberProblem } from '../../../src/core/identityNumbers.ts';
import { niwsChecks } from './niwsStandIn.ts';
import type { NiwsMethodLayout, NiwsParameterLayout, NiwsStandInAnswer } from './niwsStandIn.ts';

/**
 * Netcash's DebiCheck methods on NIWS_NIF as its pages publish them, for the NIWS stand-in (niwsStandIn.ts), with a
 * bank behind them that answers as a knob says. Parameter names and order are the service's schema's (Netcash's
 * WSDL, as public clients generated from it name them: `collectionDayCode` and `reasonCode` lower-case); each value
 * is checked against the pages' formats: the template id NCDCT and 9 digits, CCYYMMDD dates, rands with two decimals
 * for the authentication, whole cents for the amendment, whose maximum is at most 1.5 times the instalment.
 * Sources: api.netcash.co.za "DebiCheck TT1 synchronous", "DebiCheck Trace", "DebiCheck amend authentication",
 * "DebiCheck cancel authentication", "Web service response codes" (docs/gateways/netcash.md, "Sources").
 */

/** The data contract's namespace of the structured answers (NC.DG.TMS.C.WCF.NIWS). */
export const NIWS_DATA_NAMESPACE = 'http://schemas.datacontract.org/2004/07/NC.DG.TMS.C.WCF.NIWS';

/**
 * What the debtor's bank does with an authentication request: approve it within the call (`approve`), leave it
 * unanswered in the call and approve it by the next status ask (`later`), decline it (`decline`), or never answer
 * (`expire`: every status ask still finds it waiting).
 */
export type BankKnob = 'approve' | 'later' | 'decline' | 'expire';

interface Authentication {
  contractReference: string;
  knob: BankKnob;
  status: string;
  asked: number;
  cancelled: string;
  amountCents: number;
  maxCents: number | null;
}

const rands = (value: string) =>
  /^\d{1,9}\.\d{2}$/.test(value) ? null : 'not rands with two decimals (10.00)';
const cents = (value: string) => (/^[1-9]\d{0,11}$/.test(value) ? null : 'not whole cents above 0');
const bool = niwsChecks.oneOf('0', '1');
const max = (length: number) => (value: string) =>
  value.length > 0 && value.length <= length ? null : `not 1 to ${length} characters`;

const AUTHENTICATE_PARAMETERS: NiwsParameterLayout[] = [
  { name: 'ServiceKey', check: niwsChecks.guid },
  { name: 'AccountReference', check: max(22) },
  {
    name: 'DebiCheckMandateTemplateId',
    check: (value) => (/^NCDCT\d{9}$/.test(value) ? null : 'not a template id NCDCT000000001'),
  },
  { name: 'IsIdNumber', check: bool },
  { name: 'DebtorIdentification', check: max(20) },
  { name: 'AccountName', check: max(50) },
  { name: 'BankAccountName', check: max(50) },
  { name: 'BranchCode', check: (value) => (/^\d{6}$/.test(value) ? null : 'not 6 digits') },
  { name: 'BankAccountNumber', check: (value) => (/^\d{1,11}$/.test(value) ? null : 'not 1 to 11 digits') },
  { name: 'BankAccountType', check: niwsChecks.oneOf('Current', 'Savings', 'Transmission') },
  { name: 'MobileNumber', check: (value) => (/^\+?\d{10,12}$/.test(value) ? null : 'not a mobile number') },
  { name: 'EmailAddress' },
  { name: 'CollectionAmount', check: rands },
  { name: 'FirstCollectionDiffers', check: bool },
  { name: 'FirstCollectionAmount', optional: true, check: rands },
  { name: 'FirstCollectionDate', check: niwsChecks.date },
  {
    name: 'collectionDayCode',
    check: (value) =>
      /^MNTH_(0[1-9]|[12]\d|3[01])$/.test(value) ? null : 'not a day code MNTH_01 to MNTH_31',
  },
];

const CANCEL_REASONS = ['AGMT', 'CURR', 'CUST', 'CUTA', 'DUPL', 'FRAD', 'UPAY', 'FRTR'];

/** The bank and Netcash's records of its authentications, behind the four methods. */
export class DebiCheckBank {
  knob: BankKnob = 'approve';
  readonly authentications = new Map<string, Authentication>();
  /** What the identity checks found wrong in a request (each test expects none). */
  readonly problems: string[] = [];
  private next = 1;

  layouts(): NiwsMethodLayout[] {
    return [this.authenticate(), this.currentStatus(), this.amend(), this.cancel()];
  }

  private structure(fields: [string, string][]): NiwsStandInAnswer {
    return { namespace: NIWS_DATA_NAMESPACE, fields };
  }

  private authenticate(): NiwsMethodLayout {
    return {
      service: 'nif',
      method: 'DebiCheckAuthenticate',
      parameters: AUTHENTICATE_PARAMETERS,
      source: 'https://api.netcash.co.za/inbound-payments/dc/debicheck-tt1-synchronous/',
      answer: (values) => {
        const kind = values.IsIdNumber === '1' ? 'sa_id' : 'passport';
        const problem = identityNumberProblem(kind, values.DebtorIdentification ?? '');
        if (problem) this.problems.push(`DebtorIdentification ${problem}`);
        const contractReference = `NC${String(this.next++).padStart(12, '0')}`;
        const status = { approve: 'Accepted', decline: 'Rejected', later: '', expire: '' }[this.knob];
        this.authentications.set(contractReference, {
          contractReference,
          knob: this.knob,
          status: status || 'Pending',
          asked: 0,
          cancelled: '',
          amountCents: Math.round(Number(values.CollectionAmount) * 100),
          maxCents: null,
        });
        return this.structure([
          ['ErrorCode', '000'],
          ['BankResponseCode', status === '' ? '' : '00'],
          ['BankservResponseCode', status === 'Accepted' ? '900000' : ''],
          ['ClientResponseCode', ''],
          ['ContractReference', contractReference],
          ['Status', status],
        ]);
      },
    };
  }

  private currentStatus(): NiwsMethodLayout {
    return {
      service: 'nif',
      method: 'DebiCheckAuthenticationCurrentStatus',
      parameters: [{ name: 'ServiceKey', check: niwsChecks.guid }, { name: 'ContractReference' }],
      source: 'https://api.netcash.co.za/inbound-payments/dc/dctrace/',
      answer: (values) => {
        const found = this.authentications.get(values.ContractReference!);
        if (!found) return this.structure([['ErrorCode', '202']]);
        found.asked += 1;
        // The bank's delayed answer arrives by the first status ask (the `later` knob).
        if (found.knob === 'later' && found.status === 'Pending') found.status = 'Accepted';
        return this.structure([
          ['ErrorCode', '000'],
          ['CancellationReason', found.cancelled === '' ? '' : 'CUST'],
          ['ContractReference', found.contractReference],
          ['DateCancelled', found.cancelled],
          ['Status', found.status],
          ['UpdateDate', '20261201'],
        ]);
      },
    };
  }

  private amend(): NiwsMethodLayout {
    return {
      service: 'nif',
      method: 'DebiCheckAmendAuthentication',
      parameters: [
        { name: 'ServiceKey', check: niwsChecks.guid },
        { name: 'ContractReference' },
        { name: 'CollectionAmountInCents', check: cents },
        { name: 'MaximumCollectionAmountInCents', check: cents },
      ],
      source: 'https://api.netcash.co.za/inbound-payments/dc/debitcheck-amend-authentication/',
      answer: (values) => {
        const amount = Number(values.CollectionAmountInCents);
        const maximum = Number(values.MaximumCollectionAmountInCents);
        // DebiCheck's rule: the maximum is at least the instalment and at most 1.5 times it.
        if (maximum < amount || 2 * maximum > 3 * amount) {
          this.problems.push(`MaximumCollectionAmountInCents ${maximum} is not within 1 to 1.5 × ${amount}`);
        }
        const found = this.authentications.get(values.ContractReference!);
        const code = !found ? '202' : found.status !== 'Accepted' ? '326' : '000';
        if (found && code === '000') Object.assign(found, { amountCents: amount, maxCents: maximum });
        return this.structure([
          ['ErrorCode', code],
          ['ContractReference', values.ContractReference!],
        ]);
      },
    };
  }

  private cancel(): NiwsMethodLayout {
    return {
      service: 'nif',
      method: 'DebiCheckCancelAuthentication',
      parameters: [
        { name: 'ServiceKey', check: niwsChecks.guid },
        { name: 'ContractReference' },
        { name: 'reasonCode', check: niwsChecks.oneOf(...CANCEL_REASONS) },
      ],
      source: 'https://api.netcash.co.za/inbound-payments/dc/debicheckcancelauthentication/',
      answer: (values) => {
        const found = this.authentications.get(values.ContractReference!);
        if (!found) return '202';
        // Cancellation: an authentication in its Accepted state only.
        if (found.status !== 'Accepted' || found.cancelled !== '') return '326';
        found.cancelled = '20261201';
        return '000';
      },
    };
  }
}
