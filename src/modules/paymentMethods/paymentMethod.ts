import crypto from 'node:crypto';
import type { PlainDate } from '../../core/calendar.ts';
import type { IdentityKind } from '../../core/identityNumbers.ts';
import type { PaymentMethodKind } from '../gateways/index.ts';

// A customer's payment method and its parts as the module's use cases answer them (paymentMethod.mapper.ts makes
// them from rows), and the values its repository writes.

export interface CreditCardDetails {
  cardType: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
  lastFour: string;
}

export interface BankAccountDetails {
  debitMethod: string;
  accountType: string;
  accountHolder: string;
  bank: string;
  branchCode: string | null;
  bic: string | null;
  routingNumber: string | null;
  /**
   * The token of the eMandate the account is linked to: derived again by the mandates module, which stores only its
   * digest (docs/spec-decisions.md, "eMandate tokens at rest"). Filled by the API's reads only; null elsewhere
   * (events, batches), and for a mandate made before tokens had seeds.
   */
  emandateToken: string | null;
  /** The SEPA mandate's unique reference and signature day, as the business set them (beyond the spec). */
  mandateReference: string | null;
  mandateSignedOn: PlainDate | null;
  lastFour: string;
  /** The debtor's identity number as a person may see it: its kind and last three characters (never the rest). */
  identity: BankAccountIdentity | null;
  /** The gateway's last account verification (docs/gateways/netcash.md, "Account verification"); null: never. */
  verification: BankAccountVerification | null;
  /**
   * The opened account number, IBAN and identity number: only on the single-item read and for batches (undefined
   * elsewhere, so that lists never decrypt). The account number is never kept for sepa (spec: never returned
   * populated for sepa); the identity number is never returned by the API at all.
   */
  secrets?: { accountNumber: string | null; iban: string | null; idNumber: string | null };
}

/** A debtor's identity number as it may be shown: its kind and its last three characters. */
export interface BankAccountIdentity {
  kind: IdentityKind;
  ending: string;
}

export type VerificationStatus = 'verified' | 'pending' | 'failed';

/**
 * What the gateway's account verification last said of a bank account: `verified`, `failed` (with the reason, in
 * the vocabulary of src/modules/gateways/failureReasons.ts, and the bank's words) or `pending` (the bank answers
 * later: `ref` is the provider's reference to ask it by; null while the question is still to be asked).
 */
export interface BankAccountVerification {
  status: VerificationStatus;
  reason: string | null;
  detail: string | null;
  /** When the gateway answered (an instant); null for a question still to be asked. */
  checkedAt: string | null;
  gatewayId: number | null;
  ref: string | null;
}

export interface PaymentMethod {
  id: number;
  customerId: number;
  type: PaymentMethodKind;
  isPrimary: boolean;
  isValid: boolean;
  /** Our own opaque token (`pm_…`): what PrimaryPaymentMethodInfo shows; never the gateway vault's. */
  token: string;
  /**
   * A card's token in its gateway's vault, sealed; opened only inside the gateway's call (docs/gateways.md,
   * "Provider tokens are sealed"). Null for a bank account.
   */
  vaultTokenSealed: string | null;
  /** The gateway whose vault keeps a card; null for a bank account. */
  gatewayId: number | null;
  creditCard: CreditCardDetails | null;
  bankAccount: BankAccountDetails | null;
  /** When it was added: a SEPA mandate without a signature day of its own counts as signed that day. */
  createdAt: string;
}

/** A bank account's number, IBAN and debtor's identity number as stored: sealed (SecretBox), never in clear. */
export interface SealedBankNumbers {
  accountNumberSealed: string | null;
  ibanSealed: string | null;
  idNumberSealed: string | null;
}

/** A method with its sealed numbers, for the reads that open them. */
export type SealedPaymentMethod = PaymentMethod & { sealed: SealedBankNumbers };

/** A bank account's details as stored: its number and IBAN sealed. */
export interface StoredBankAccount extends SealedBankNumbers {
  mandateReference: string | null;
  mandateSignedOn: PlainDate | null;
  lastFour: string;
  debitMethod: string;
  accountType: string;
  accountHolder: string;
  bank: string;
  branchCode: string | null;
  bic: string | null;
  routingNumber: string | null;
  /** The identity number's kind and last three characters; the number itself is `idNumberSealed`. */
  identity: BankAccountIdentity | null;
}

/** A method to insert: a card (its details) or a bank account (its stored details). */
export interface NewPaymentMethod {
  accountId: number;
  customerId: number;
  gatewayId: number | null;
  token: string;
  vaultTokenSealed: string | null;
  isValid: boolean;
  isPrimary: boolean;
  details:
    | { type: 'credit_card'; card: CreditCardDetails }
    | { type: 'bank_account'; bankAccount: StoredBankAccount };
  /** A bank account's verification as it starts (a capture session's answer, or one still to be asked). */
  verification?: BankAccountVerification | null;
  createdAt: string;
  updatedAt: string;
}

/** A bank account's new details: unproven again unless `isValid` says otherwise, its verification started again. */
export type BankAccountChanges = StoredBankAccount & {
  isValid: boolean;
  verification: BankAccountVerification | null;
  updatedAt: string;
};

/** A customer's primary method, as PrimaryPaymentMethodInfo shows it. */
export interface PrimaryPaymentMethod {
  id: number;
  customerId: number;
  token: string;
}

/**
 * A payment method's token of our own: opaque, random, and the same in every answer, event and audit entry that
 * names the method (docs/spec-decisions.md, "Payment-method tokens").
 */
export function newPaymentMethodToken(): string {
  return `pm_${crypto.randomBytes(12).toString('hex')}`;
}
