import { startOfDate } from '../../core/calendar.ts';
import type { AddBankAccountInput, BankAccountInput } from './bankAccount.service.ts';
import type { ValidateBankAccountInput } from './bankAccountValidation.service.ts';
import type { AddCreditCardInput } from './card.service.ts';
import type { PaymentMethod } from './paymentMethod.ts';
import type {
  AddCreditCardBody,
  BankAccountBody,
  CustomerPaymentMethodListItemOut,
  PaymentMethodListItemOut,
  PaymentMethodOut,
  ValidateBankAccountBody,
} from './paymentMethods.schemas.ts';

type BankAccountWire = BankAccountBody['BankAccount'];

function methodHead(method: PaymentMethod) {
  return {
    paymentMethodID: method.id,
    customerID: method.customerId,
    PaymentMethodType: method.type,
    isPrimary: method.isPrimary,
    isValid: method.isValid,
  };
}

/** The full set (spec: single-item read). The account number and IBAN appear only when the read opened them. */
export function toPaymentMethodDto(method: PaymentMethod, timeZone: string): PaymentMethodOut {
  const bank = method.bankAccount;
  const card = method.creditCard;
  return {
    ...methodHead(method),
    BankAccount: bank && {
      DebitMethod: bank.debitMethod,
      AccountType: bank.accountType,
      AccountHolder: bank.accountHolder,
      Bank: bank.bank,
      // Spec: AccountNumber is never returned populated for sepa (it is not kept for sepa either).
      AccountNumber: bank.debitMethod === 'sepa' ? null : (bank.secrets?.accountNumber ?? null),
      BranchCode: bank.branchCode,
      IBAN: bank.secrets?.iban ?? null,
      BIC: bank.bic,
      RoutingNumber: bank.routingNumber,
      LastFourDigits: bank.lastFour,
      EMandateToken: bank.emandateToken,
      MandateReference: bank.mandateReference,
      MandateSignatureDate: bank.mandateSignedOn && startOfDate(bank.mandateSignedOn, timeZone),
      // Never the identity number itself: its kind and last three characters (docs/spec-decisions.md).
      IdType: bank.identity?.kind ?? null,
      IdNumberLastThree: bank.identity?.ending ?? null,
      Verification: bank.verification && {
        Status: bank.verification.status,
        Date: bank.verification.checkedAt,
        Reason: bank.verification.reason,
      },
    },
    CreditCard: card && {
      CardType: card.cardType,
      NameOnCard: card.nameOnCard,
      LastNameOnCard: card.lastNameOnCard,
      ExpiryMonth: card.expiryMonth,
      ExpiryYear: card.expiryYear,
      LastFourDigits: card.lastFour,
    },
  };
}

/** Spec: a customer's list shows only AccountHolder and LastFourDigits, or NameOnCard and LastFourDigits. */
export function toCustomerPaymentMethodListItemDto(method: PaymentMethod): CustomerPaymentMethodListItemOut {
  return {
    ...methodHead(method),
    BankAccount: method.bankAccount && {
      AccountHolder: method.bankAccount.accountHolder,
      LastFourDigits: method.bankAccount.lastFour,
    },
    CreditCard: method.creditCard && {
      NameOnCard: method.creditCard.nameOnCard,
      LastFourDigits: method.creditCard.lastFour,
    },
  };
}

/** Spec: the account-wide list adds EMandateToken to a bank account. */
export function toPaymentMethodListItemDto(method: PaymentMethod): PaymentMethodListItemOut {
  const item = toCustomerPaymentMethodListItemDto(method);
  return {
    ...item,
    BankAccount: item.BankAccount && {
      ...item.BankAccount,
      EMandateToken: method.bankAccount!.emandateToken,
    },
  };
}

function bankAccountFromWire(body: BankAccountWire): BankAccountInput {
  return {
    method: body.Method,
    accountType: body.AccountType,
    accountHolder: body.AccountHolder,
    bank: body.Bank,
    accountNumber: body.AccountNumber,
    branchCode: body.BranchCode,
    routingNumber: body.RoutingNumber,
    iban: body.IBAN,
    bic: body.BIC,
    emandateToken: body.EMandateToken,
    mandateReference: body.MandateReference,
    mandateSignatureDate: body.MandateSignatureDate,
    idNumber: body.IdNumber,
    idType: body.IdType,
  };
}

export function creditCardInputFromWire(body: AddCreditCardBody): AddCreditCardInput {
  const card = body.CreditCard;
  return {
    customerId: body.customerID,
    isPrimary: body.isPrimary,
    cardType: card.CardType,
    number: card.Number,
    nameOnCard: card.NameOnCard,
    lastNameOnCard: card.LastNameOnCard,
    expiryMonth: card.ExpiryMonth,
    expiryYear: card.ExpiryYear,
  };
}

export function bankAccountInputFromWire(body: BankAccountBody): AddBankAccountInput {
  return {
    customerId: body.customerID,
    isPrimary: body.isPrimary,
    bankAccount: bankAccountFromWire(body.BankAccount),
  };
}

export function validateBankAccountInputFromWire(
  gatewayId: number,
  body: ValidateBankAccountBody,
): ValidateBankAccountInput {
  return {
    gatewayId,
    bankAccount: bankAccountFromWire(body.BankAccount),
    customerId: body.customerID,
    paymentMethodType: body.PaymentMethodType,
  };
}
