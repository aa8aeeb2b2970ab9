import type { Insertable, Selectable, Updateable } from 'kysely';
import type { PaymentMethodKind } from '../gateways/index.ts';
import type { PaymentMethodsTable } from './tables.ts';
import type {
  BankAccountChanges,
  NewPaymentMethod,
  PaymentMethod,
  SealedPaymentMethod,
  StoredBankAccount,
} from './paymentMethod.ts';

/** A payment method's row without its sealed account number and IBAN: what lists and checks read. */
export type PaymentMethodRow = Omit<
  Selectable<PaymentMethodsTable>,
  'account_id' | 'account_number_sealed' | 'iban_sealed' | 'updated_at'
>;
/** With the sealed columns, for the reads that open the bank account. */
export type SealedPaymentMethodRow = PaymentMethodRow &
  Pick<Selectable<PaymentMethodsTable>, 'account_number_sealed' | 'iban_sealed'>;

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
            secrets: undefined,
          }
        : null,
  };
}

export function sealedPaymentMethodFromRow(row: SealedPaymentMethodRow): SealedPaymentMethod {
  return {
    ...paymentMethodFromRow(row),
    sealed: { accountNumberSealed: row.account_number_sealed, ibanSealed: row.iban_sealed },
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
      : storedBankAccountToRow(details.bankAccount)),
    created_at: method.createdAt,
    updated_at: method.updatedAt,
    is_primary: method.isPrimary,
  };
}

export function bankAccountChangesToRow(changes: BankAccountChanges): Updateable<PaymentMethodsTable> {
  return {
    ...storedBankAccountToRow(changes),
    is_valid: changes.isValid,
    updated_at: changes.updatedAt,
  };
}
