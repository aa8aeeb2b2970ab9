import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, NullableObject, Text, WireDate } from '../../http/schemas.ts';
import { CARD_TYPES } from '../gateways/index.ts';
import { ACCOUNT_TYPES, DEBIT_METHODS } from '../mandates/index.ts';

// Brands, methods and account types are checked by the use case (case-insensitively, with messages naming the
// field path), so the schemas describe them rather than enumerate them.

const CreditCardIn = Type.Object({
  CardType: Text(40, { description: `One of ${CARD_TYPES.join(', ')} (any letter case)` }),
  Number: Text(40, {
    description:
      'The full card number, digits (spaces or dashes between groups allowed). Input only: it goes to the gateway vault and is never stored or returned.',
  }),
  NameOnCard: Text(255),
  LastNameOnCard: Text(255),
  ExpiryMonth: Type.Integer({ description: '1 to 12' }),
  ExpiryYear: Type.Integer({
    description: 'Four digits; the card must not have expired (account time zone)',
  }),
});

const optionalText = (maxLength: number, description?: string) =>
  Type.Optional(Nullable(Text(maxLength, description ? { description } : {})));

export const BankAccountIn = Type.Object({
  Method: Text(20, { description: `${DEBIT_METHODS.join(', ')} (also written Debit Order, SEPA, ...)` }),
  AccountType: Text(40, { description: `One of ${ACCOUNT_TYPES.join(', ')} (any letter case)` }),
  AccountHolder: Text(255),
  Bank: Text(255),
  AccountNumber: optionalText(
    40,
    'Required for debit_order and ach (4 to 17 digits); sealed at rest; ignored for sepa, whose IBAN identifies the account',
  ),
  BranchCode: optionalText(40, 'Required for debit_order; not allowed for sepa and ach'),
  RoutingNumber: optionalText(20, 'ABA routing number: required for ach, not allowed otherwise'),
  IBAN: optionalText(50, 'Required for sepa, not allowed otherwise; sealed at rest'),
  BIC: optionalText(20, 'Required for sepa, not allowed otherwise'),
  EMandateToken: optionalText(
    255,
    'The token of the signed eMandate that authorises debits from this account (debit_order): the account number and branch code must be the mandate’s; the account is then valid at once',
  ),
  MandateReference: optionalText(
    35,
    'Beyond the spec, sepa only: the unique reference of the debit mandate the account is collected under ' +
      "(1 to 35 of A-Z a-z 0-9 / - ? : ( ) . , ' + and space), with MandateSignatureDate. Left out on an edit, " +
      'the account keeps its own; null clears it',
  ),
  MandateSignatureDate: Type.Optional(
    Nullable(
      WireDate({
        description:
          'Beyond the spec, sepa only: the day the debtor signed the mandate, not in the future; with MandateReference',
      }),
    ),
  ),
  IdNumber: optionalText(
    40,
    "Beyond the spec, debit_order only: the debtor's identity number, a South-African ID number (13 digits, its " +
      'birth date and Luhn check digit) or, with IdType passport, a passport number. Sent to the bank to verify the ' +
      'account; sealed at rest and never returned (only IdNumberLastThree). Left out on an edit, the account keeps ' +
      'its own; null clears it',
  ),
  IdType: optionalText(20, 'Beyond the spec, with IdNumber: sa_id (the default) or passport'),
});

export const AddCreditCardBody = Type.Object({
  customerID: Id(),
  isPrimary: Type.Boolean({
    description: "Make it the customer's primary; the first method is primary anyway",
  }),
  CreditCard: CreditCardIn,
});
export type AddCreditCardBody = Static<typeof AddCreditCardBody>;

export const BankAccountBody = Type.Object({
  customerID: Id(),
  isPrimary: Type.Boolean({
    description: "Make it the customer's primary; the first method is primary anyway",
  }),
  BankAccount: BankAccountIn,
});
export type BankAccountBody = Static<typeof BankAccountBody>;

export const ValidateBankAccountBody = Type.Object({
  BankAccount: BankAccountIn,
  customerID: Type.Optional(Nullable(Id())),
  PaymentMethodType: Type.Optional(Nullable(Text(20, { description: 'bank_account when given' }))),
  isPrimary: Type.Optional(Nullable(Type.Boolean({ description: 'Accepted and ignored' }))),
  isValid: Type.Optional(Nullable(Type.Boolean({ description: 'Accepted and ignored' }))),
});
export type ValidateBankAccountBody = Static<typeof ValidateBankAccountBody>;

const methodFields = {
  paymentMethodID: Type.Integer(),
  customerID: Type.Integer(),
  PaymentMethodType: Type.String({ description: 'bank_account or credit_card' }),
  isPrimary: Type.Boolean(),
  isValid: Type.Boolean(),
};

/** Spec: the single-item read returns the full set. */
export const PaymentMethodOut = Type.Object(
  {
    ...methodFields,
    BankAccount: NullableObject({
      DebitMethod: Type.String({ description: DEBIT_METHODS.join(', ') }),
      AccountType: Type.String(),
      AccountHolder: Type.String(),
      Bank: Type.String(),
      AccountNumber: Nullable(Type.String({ description: 'Null for sepa' })),
      BranchCode: Nullable(Type.String()),
      IBAN: Nullable(Type.String({ description: 'sepa only' })),
      BIC: Nullable(Type.String({ description: 'sepa only' })),
      RoutingNumber: Nullable(Type.String({ description: 'ach only' })),
      LastFourDigits: Type.String(),
      EMandateToken: Nullable(Type.String()),
      MandateReference: Nullable(Type.String({ description: 'Beyond the spec: the SEPA mandate reference' })),
      MandateSignatureDate: Nullable(
        Type.String({ format: 'date-time', description: 'Beyond the spec: the day the mandate was signed' }),
      ),
      IdType: Nullable(Type.String({ description: "Beyond the spec: the debtor's identity number's kind" })),
      IdNumberLastThree: Nullable(
        Type.String({
          description: "Beyond the spec: the last three characters of the debtor's identity number",
        }),
      ),
      // Beyond the spec: the gateway's account verification with the debtor's bank (SA AVS); null: never verified.
      Verification: NullableObject({
        Status: Type.String({
          description:
            "The gateway's account verification with the debtor's bank (SA AVS): verified, pending (the bank " +
            'answers later) or failed',
        }),
        Date: Nullable(Type.String({ format: 'date-time', description: 'When the gateway answered' })),
        Reason: Nullable(
          Type.String({
            description:
              'Why it failed: invalid_account, account_closed, debits_not_allowed or account_holder_mismatch',
          }),
        ),
      }),
    }),
    CreditCard: NullableObject({
      CardType: Type.String(),
      NameOnCard: Type.String(),
      LastNameOnCard: Type.String(),
      ExpiryMonth: Type.Integer(),
      ExpiryYear: Type.Integer(),
      LastFourDigits: Type.String(),
    }),
  },
  { $id: 'PaymentMethod' },
);
export type PaymentMethodOut = Static<typeof PaymentMethodOut>;

/** Spec: lists return only AccountHolder and LastFourDigits of a bank account, NameOnCard and LastFourDigits of a card. */
export const CustomerPaymentMethodListItemOut = Type.Object(
  {
    ...methodFields,
    BankAccount: NullableObject({ AccountHolder: Type.String(), LastFourDigits: Type.String() }),
    CreditCard: NullableObject({ NameOnCard: Type.String(), LastFourDigits: Type.String() }),
  },
  { $id: 'CustomerPaymentMethodListItem' },
);
export type CustomerPaymentMethodListItemOut = Static<typeof CustomerPaymentMethodListItemOut>;

/** Spec: the account-wide list adds EMandateToken to a bank account. */
export const PaymentMethodListItemOut = Type.Object(
  {
    ...methodFields,
    BankAccount: NullableObject({
      AccountHolder: Type.String(),
      LastFourDigits: Type.String(),
      EMandateToken: Nullable(Type.String()),
    }),
    CreditCard: NullableObject({ NameOnCard: Type.String(), LastFourDigits: Type.String() }),
  },
  { $id: 'PaymentMethodListItem' },
);
export type PaymentMethodListItemOut = Static<typeof PaymentMethodListItemOut>;

export const PaymentMethodIdParams = Type.Object({ paymentMethodID: Id() });
export const CustomerIdParams = Type.Object({ customerID: Id() });
export const GatewayIdParams = Type.Object({ gatewayID: Id() });
