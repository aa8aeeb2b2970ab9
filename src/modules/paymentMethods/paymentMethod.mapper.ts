import type { Insertable, Selectable, Updateable } from 'kysely';
import type { IdentityKind } from '../../core/identityNumbers.ts';
import type { PaymentMethodKind } from '../gateways/index.ts';
import type { PaymentMethodsTable } from './tables.ts';
import type {
  BankAccountChanges,
  BankAccountVerification,
  NewPaymentMethod,
  PaymentMethod,
  SealedPaymentMethod,
  StoredBankAccount,
  VerificationStatus,
} from './paymentMethod.ts';

/** A payment method's row without its sealed numbers: what lists and checks read. */
export type PaymentMethodRow = Omit<
  Selectable<PaymentMethodsTable>,
  'account_id' | 'account_number_sealed' | 'iban_sealed' | 'id_number_sealed' | 'updated_at'
>;
/** With the sealed columns, for the reads that open the bank account. */
export type SealedPaymentMethodRow = PaymentMethodRow &
  Pick<Selectable<PaymentMethodsTable>, 'account_number_sealed' | 'iban_sealed' | 'id_number_sealed'>;

type VerificationColumns = Pick<
  Selectable<PaymentMethodsTable>,
  | 'verification_status'
  | 'verification_reason'
  | 'verification_detail'
  | 'verification_checked_at'
  | 'verification_gateway_id'
  | 'verification_ref'
>;

function verificationFromRow(row: VerificationColumns): BankAccountVerification | null {
  if (row.verification_status === null) return null;
  return {
    status: row.verification_status as VerificationStatus,
    reason: row.verification_reason,
    detail: row.verification_detail,
    checkedAt: row.verification_checked_at,
    gatewayId: row.verification_gateway_id,
    ref: row.verification_ref,
  };
}

/** A verification as its columns are written (all null: never verified). */
export function verificationToRow(verification: BankAccountVerification | null): VerificationColumns {
  return {
    verification_status: verification?.status ?? null,
    verification_reason: verification?.reason ?? null,
    verification_detail: verification?.detail ?? null,
    verification_checked_at: verification?.checkedAt ?? null,
    verification_gateway_id: verification?.gatewayId ?? null,
    verification_ref: verification?.ref ?? null,
  };
}

/** The one mapping from a payment method's row, used by paymentMethod.repository.ts. */
export function paymentMethodFromRow(row: PaymentMethodRow): PaymentMethod {
  const type = row.method_type as PaymentMethodKind;
  return {
    id: row.id,
    customerId: row.customer_id,
    type,
    isPrimary: Boolean(row.is_primary),
    isValid: Boolean(row.is_valid),
    token: row.token,
    vaultTokenSealed: row.vault_token_sealed,
    gatewayId: row.gateway_id,
    createdAt: row.created_at,
    creditCard:
      type === 'credit_card'
        ? {
            cardType: row.card_type!,
            nameOnCard: row.name_on_card!,
            lastNameOnCard: row.last_name_on_card!,
            expiryMonth: row.expiry_month!,
            expiryYear: row.expiry_year!,
            lastFour: row.last_four,
          }
        : null,
    bankAccount:
      type === 'bank_account'
        ? {
            debitMethod: row.debit_method!,
            accountType: row.account_type!,
            accountHolder: row.account_holder!,
            bank: row.bank!,
            branchCode: row.branch_code,
            bic: row.bic,
            routingNumber: row.routing_number,
            emandateToken: null,
            mandateReference: row.mandate_reference,
            mandateSignedOn: row.mandate_signed_on,
            lastFour: row.last_four,
            identity:
              row.id_number_kind === null
                ? null
                : { kind: row.id_number_kind as IdentityKind, ending: row.id_number_ending ?? '' },
            verification: verificationFromRow(row),
            secrets: undefined,
          }
        : null,
  };
}

export function sealedPaymentMethodFromRow(row: SealedPaymentMethodRow): SealedPaymentMethod {
  return {
    ...paymentMethodFromRow(row),
    sealed: {
      accountNumberSealed: row.account_number_sealed,
      ibanSealed: row.iban_sealed,
      idNumberSealed: row.id_number_sealed,
    },
  };
}

function storedBankAccountToRow(account: StoredBankAccount) {
  return {
    mandate_reference: account.mandateReference,
    mandate_signed_on: account.mandateSignedOn,
    last_four: account.lastFour,
    debit_method: account.debitMethod,
    account_type: account.accountType,
    account_holder: account.accountHolder,
    bank: account.bank,
    account_number_sealed: account.accountNumberSealed,
    branch_code: account.branchCode,
    iban_sealed: account.ibanSealed,
    bic: account.bic,
    routing_number: account.routingNumber,
    id_number_sealed: account.idNumberSealed,
    id_number_kind: account.identity?.kind ?? null,
    id_number_ending: account.identity?.ending ?? null,
  };
}

export function newPaymentMethodToRow(method: NewPaymentMethod): Insertable<PaymentMethodsTable> {
  const { details } = method;
  return {
    account_id: method.accountId,
    customer_id: method.customerId,
    gateway_id: method.gatewayId,
    method_type: details.type,
    token: method.token,
    vault_token_sealed: method.vaultTokenSealed,
    is_valid: method.isValid,
    ...(details.type === 'credit_card'
      ? {
          last_four: details.card.lastFour,
          card_type: details.card.cardType,
          name_on_card: details.card.nameOnCard,
          last_name_on_card: details.card.lastNameOnCard,
          expiry_month: details.card.expiryMonth,
          expiry_year: details.card.expiryYear,
        }
      : {
          ...storedBankAccountToRow(details.bankAccount),
          ...verificationToRow(method.verification ?? null),
        }),
    created_at: method.createdAt,
    updated_at: method.updatedAt,
    is_primary: method.isPrimary,
  };
}

export function bankAccountChangesToRow(changes: BankAccountChanges): Updateable<PaymentMethodsTable> {
  return {
    ...storedBankAccountToRow(changes),
    ...verificationToRow(changes.verification),
    is_valid: changes.isValid,
    updated_at: changes.updatedAt,
  };
}
