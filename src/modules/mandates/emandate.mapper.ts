import type { Insertable, Selectable, Updateable } from 'kysely';
import type { AccountType } from './bankAccounts.ts';
import type { DebitFrequency } from './mandates.ts';
import type { IdentityKind } from '../../core/identityNumbers.ts';
import type { DebiCheckContractType, DebiCheckMandate, DebiCheckStatus } from './debiCheck.ts';
import type { EmandatesTable } from './tables.ts';
import type {
  EmandateChanges,
  EmandateFlow,
  EmandateRecord,
  EmandateStatus,
  NewEmandate,
} from './emandate.ts';

/** The one mapping between a mandate's row and its record, used by the module's repository. */
export function emandateFromRow(row: Selectable<EmandatesTable>): EmandateRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    paymentMethodId: row.payment_method_id,
    flow: row.flow as EmandateFlow,
    status: row.status as EmandateStatus,
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
    accountNumberSealed: row.bank_acc_number_sealed,
    tokenSeed: row.token_seed,
    debiCheck: debiCheckFromRow(row),
    debiCheckIdSealed: row.debicheck_id_sealed,
  };
}

function debiCheckFromRow(row: Selectable<EmandatesTable>): DebiCheckMandate | null {
  if (row.debicheck_contract_type === null) return null;
  return {
    contractType: row.debicheck_contract_type as DebiCheckContractType,
    trackingDays: row.debicheck_tracking_days ?? 0,
    firstAmountMinor: row.debicheck_first_amt_minor,
    idKind: row.debicheck_id_kind as IdentityKind,
    idEnding: row.debicheck_id_ending ?? '',
    status: row.debicheck_status as DebiCheckStatus | null,
    gatewayId: row.debicheck_gateway_id,
    contractReference: row.debicheck_contract_reference,
    requestedAt: row.debicheck_requested_at,
    expiresAt: row.debicheck_expires_at,
    answeredAt: row.debicheck_answered_at,
    reason: row.debicheck_reason,
  };
}

export function newEmandateToRow(mandate: NewEmandate): Insertable<EmandatesTable> {
  const { signee, bankAccount, debit } = mandate;
  return {
    customer_id: mandate.customerId,
    name: signee.name,
    last_name: signee.lastName,
    company: signee.company,
    trading_as: signee.tradingAs,
    tel: signee.tel,
    email: signee.email,
    address1: signee.address1,
    address2: signee.address2,
    city: signee.city,
    state: signee.state,
    country_iso_code: signee.countryIsoCode,
    postal_code: signee.postalCode,
    is_company_signee: mandate.isCompanySignee,
    bank_debit_method: bankAccount.debitMethod,
    bank_name: bankAccount.bankName,
    bank_branch_code: bankAccount.branchCode,
    bank_acc_holder: bankAccount.accountHolder,
    bank_account_type: bankAccount.accountType,
    currency_code: debit.currencyCode,
    debit_frequency: debit.frequency,
    debit_action_day: debit.actionDay,
    debit_start_date: debit.startDate,
    debit_end_date: debit.endDate,
    debit_amt_minor: debit.amountMinor,
    debit_max_amt_minor: debit.maxAmountMinor,
    debit_escalation: debit.escalation,
    debit_name_on_stmt: debit.nameOnStatement,
    debit_contract_ref: debit.contractRef,
    debit_variable_amts: debit.variableAmounts,
    is_customer_editable: mandate.isCustomerEditable,
    auth_domain: mandate.authDomain,
    return_url: mandate.returnUrl,
    cancel_url: mandate.cancelUrl,
    account_id: mandate.accountId,
    token_sha256: mandate.tokenSha256,
    token_seed: mandate.tokenSeed,
    flow: mandate.flow,
    status: mandate.status,
    bank_acc_number_sealed: mandate.accountNumberSealed,
    bank_last_four: bankAccount.lastFour,
    expires_at: mandate.expiresAt,
    created_at: mandate.createdAt,
    updated_at: mandate.updatedAt,
    ...(mandate.debiCheck && {
      debicheck_contract_type: mandate.debiCheck.contractType,
      debicheck_tracking_days: mandate.debiCheck.trackingDays,
      debicheck_first_amt_minor: mandate.debiCheck.firstAmountMinor,
      debicheck_id_kind: mandate.debiCheck.idKind,
      debicheck_id_ending: mandate.debiCheck.idEnding,
      debicheck_id_sealed: mandate.debiCheckIdSealed,
    }),
  };
}

/** Each field of a DebiCheck authentication and its column. */
const DEBICHECK_COLUMN = {
  status: 'debicheck_status',
  gatewayId: 'debicheck_gateway_id',
  contractReference: 'debicheck_contract_reference',
  requestedAt: 'debicheck_requested_at',
  expiresAt: 'debicheck_expires_at',
  answeredAt: 'debicheck_answered_at',
  reason: 'debicheck_reason',
} as const;

/** Each correctable signee field and its column. */
const SIGNEE_COLUMN = {
  tel: 'tel',
  email: 'email',
  address1: 'address1',
  address2: 'address2',
  city: 'city',
  state: 'state',
  postalCode: 'postal_code',
} as const;

/** The columns a change sets: the signee's corrections first, in the order they were given, then the lifecycle's. */
export function emandateChangesToRow(changes: EmandateChanges): Updateable<EmandatesTable> {
  const row: Updateable<EmandatesTable> = {};
  for (const [field, value] of Object.entries(changes.signee ?? {})) {
    if (value !== undefined) row[SIGNEE_COLUMN[field as keyof typeof SIGNEE_COLUMN]] = value;
  }
  row.status = changes.status;
  if (changes.signing) {
    row.signed_at = changes.signing.signedAt;
    row.signed_name = changes.signing.typedName;
    row.signed_client_address = changes.signing.clientAddress;
    row.signed_user_agent = changes.signing.userAgent;
    row.consent_text = changes.signing.consentText;
    row.consent_sha256 = changes.signing.consentSha256;
    row.document_sha256 = changes.signing.documentSha256;
  }
  if (changes.declinedAt !== undefined) row.declined_at = changes.declinedAt;
  if (changes.cancelledAt !== undefined) row.cancelled_at = changes.cancelledAt;
  for (const [field, value] of Object.entries(changes.debiCheck ?? {})) {
    if (value !== undefined) {
      (row as Record<string, unknown>)[DEBICHECK_COLUMN[field as keyof typeof DEBICHECK_COLUMN]] = value;
    }
  }
  if (changes.amounts) {
    row.debit_amt_minor = changes.amounts.amountMinor;
    row.debit_max_amt_minor = changes.amounts.maxAmountMinor;
  }
  row.updated_at = changes.updatedAt;
  return row;
}
