import type { SqlBool, Instant, Id, PlainDateColumn } from '../../storage/columnTypes.ts';

// The tables the paymentMethods module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

export interface PaymentMethodsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  gateway_id: number | null;
  /** credit_card or bank_account. */
  method_type: string;
  /**
   * A token of our own (`pm_` and 24 hex digits): what PrimaryPaymentMethodInfo and the capture widget's
   * paymentMethodToken show (docs/spec-decisions.md, "Payment-method tokens").
   */
  token: string;
  /** A card's token in the gateway's vault, sealed (SecretBox): it charges the card. Null for a bank account. */
  vault_token_sealed: string | null;
  is_primary: SqlBool;
  is_valid: SqlBool;
  last_four: string;
  card_type: string | null;
  name_on_card: string | null;
  last_name_on_card: string | null;
  expiry_month: number | null;
  expiry_year: number | null;
  debit_method: string | null;
  account_type: string | null;
  account_holder: string | null;
  bank: string | null;
  /** SecretBox-sealed; never a clear account number or IBAN in the database. */
  account_number_sealed: string | null;
  branch_code: string | null;
  iban_sealed: string | null;
  bic: string | null;
  routing_number: string | null;
  /** The SEPA mandate's reference and signature day, set through the API until eMandates exist. */
  mandate_reference: string | null;
  mandate_signed_on: PlainDateColumn | null;
  /** The debtor's identity number, sealed; its kind (sa_id, passport) and last three characters in clear. */
  id_number_sealed: string | null;
  id_number_kind: string | null;
  id_number_ending: string | null;
  /** The gateway's last account verification: verified, pending or failed (null: never verified). */
  verification_status: string | null;
  /** A failed verification's reason (src/modules/gateways/failureReasons.ts) and the bank's words. */
  verification_reason: string | null;
  verification_detail: string | null;
  verification_checked_at: Instant | null;
  verification_gateway_id: number | null;
  /** A pending verification's reference at the provider (a bulk answer's file token); null: still to be asked. */
  verification_ref: string | null;
  created_at: Instant;
  updated_at: Instant;
}

/** The paymentMethods module's tables, as Kysely's Database type holds them. */
export interface PaymentMethodsTables {
  payment_methods: PaymentMethodsTable;
}
