import type { AccountType } from './bankAccounts.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { DebitFrequency } from './mandates.ts';
import type { EmandateRow } from './emandate.repository.ts';

/** Where an eMandate is (docs/design/mandates.md, "Lifecycle"): the states this service reaches so far. */
export type EmandateStatus = 'pending_signature' | 'signed' | 'expired' | 'rejected' | 'cancelled';

/** How the mandate is signed: in a frame on the merchant's page, or on our page the signee is sent to. */
export type EmandateFlow = 'embedded' | 'redirect';

export interface Signee {
  name: string;
  lastName: string;
  company: string | null;
  tradingAs: string | null;
  tel: string | null;
  email: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  /** ISO 3166-1 alpha-3 (spec part 2, eMandate: three-letter). */
  countryIsoCode: string | null;
  postalCode: string | null;
}

/** The bank account, as everything but the signing itself sees it: only the last four digits of its number. */
export interface MandateBankAccount {
  debitMethod: 'debit_order';
  bankName: string;
  branchCode: string;
  accountHolder: string;
  lastFour: string;
  accountType: AccountType;
}

export interface DebitTerms {
  currencyCode: string;
  frequency: DebitFrequency;
  actionDay: number;
  startDate: PlainDate;
  endDate: PlainDate | null;
  amountMinor: number;
  maxAmountMinor: number;
  /** A yearly rate in percent, exact decimal text; null: never. */
  escalation: string | null;
  nameOnStatement: string;
  contractRef: string;
  variableAmounts: boolean;
}

/** The evidence of signing (docs/design/hosted-pages.md, "eMandate pages"). */
export interface SigningEvidence {
  signedAt: string;
  typedName: string;
  clientAddress: string;
  userAgent: string;
  consentText: string;
  consentSha256: string;
  documentSha256: string;
}

/** The creditor, from the account's seller details (spec part 2, eMandate: Beneficiary*). */
export interface Beneficiary {
  name: string;
  contactNumber: string | null;
  webPage: string | null;
  email: string | null;
}

/** A mandate as the service knows it: never with its token, which is stored only as a digest (emandateToken.ts). */
export interface Emandate {
  id: number;
  customerId: number | null;
  paymentMethodId: number | null;
  flow: EmandateFlow;
  /** As of the clock it was read by: an unsigned mandate past its expiry reads as expired before the sweep. */
  status: EmandateStatus;
  signee: Signee;
  bankAccount: MandateBankAccount;
  debit: DebitTerms;
  isCustomerEditable: boolean;
  isCompanySignee: boolean;
  authDomain: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  expiresAt: string;
  /** When the signee declined (status rejected). */
  declinedAt: string | null;
  /** When the merchant cancelled it (status cancelled): docs/spec-decisions.md, "Cancelling an eMandate". */
  cancelledAt: string | null;
  createdAt: string;
  signing: SigningEvidence | null;
  beneficiary: Beneficiary;
}

export function emandateFromRow(row: EmandateRow, now: string, beneficiary: Beneficiary): Emandate {
  const lapsed = row.status === 'pending_signature' && row.expires_at <= now;
  return {
    id: row.id,
    customerId: row.customer_id,
    paymentMethodId: row.payment_method_id,
    flow: row.flow as EmandateFlow,
    status: lapsed ? 'expired' : (row.status as EmandateStatus),
    signee: {
      name: row.name,
      lastName: row.last_name,
      company: row.company,
      tradingAs: row.trading_as,
      tel: row.tel,
      email: row.email,
      address1: row.address1,
      address2: row.address2,
      city: row.city,
      state: row.state,
      countryIsoCode: row.country_iso_code,
      postalCode: row.postal_code,
    },
    bankAccount: {
      debitMethod: 'debit_order',
      bankName: row.bank_name,
      branchCode: row.bank_branch_code,
      accountHolder: row.bank_acc_holder,
      lastFour: row.bank_last_four,
      accountType: row.bank_account_type as AccountType,
    },
    debit: {
      currencyCode: row.currency_code,
      frequency: row.debit_frequency as DebitFrequency,
      actionDay: row.debit_action_day,
      startDate: row.debit_start_date,
      endDate: row.debit_end_date,
      amountMinor: row.debit_amt_minor,
      maxAmountMinor: row.debit_max_amt_minor,
      escalation: row.debit_escalation,
      nameOnStatement: row.debit_name_on_stmt,
      contractRef: row.debit_contract_ref,
      variableAmounts: Boolean(row.debit_variable_amts),
    },
    isCustomerEditable: Boolean(row.is_customer_editable),
    isCompanySignee: Boolean(row.is_company_signee),
    authDomain: row.auth_domain,
    returnUrl: row.return_url,
    cancelUrl: row.cancel_url,
    expiresAt: row.expires_at,
    declinedAt: row.declined_at,
    cancelledAt: row.cancelled_at,
    createdAt: row.created_at,
    signing:
      row.signed_at === null
        ? null
        : {
            signedAt: row.signed_at,
            typedName: row.signed_name ?? '',
            clientAddress: row.signed_client_address ?? '',
            userAgent: row.signed_user_agent ?? '',
            consentText: row.consent_text ?? '',
            consentSha256: row.consent_sha256 ?? '',
            documentSha256: row.document_sha256 ?? '',
          },
    beneficiary,
  };
}
