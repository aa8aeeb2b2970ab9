import type { SqlBool, Instant, Id, Defaulted } from '../../storage/columnTypes.ts';

// The tables the widgets module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/** The capture sessions of the hosted widget (migration 0018; see schema.ts). */
export interface CaptureSessionsTable {
  id: Id;
  account_id: number;
  session_token: string;
  /** SHA-256 (hex) of the HashToken the browser holds; the token itself is never stored. */
  hash_token_sha256: string;
  api_key_id: number | null;
  ext_ref: string | null;
  currency_code: string;
  /** src/modules/widgets/captureSession.ts VAULTING_TYPES. */
  vaulting_type: string;
  /** src/modules/widgets/captureSession.ts SALE_TYPES. */
  sale_type: string;
  vault_only_on_success: SqlBool;
  amount_minor: number | null;
  gateway_id: number;
  auth_domain: string;
  description: string | null;
  invoice_id: number | null;
  /** A sale of the invoice's balance: it charges at most what the invoice owes at submit (migration 0033). */
  up_to_owed: SqlBool;
  /** open, capturing, challenging, captured, completed, locked. */
  state: string;
  failed_attempts: Defaulted<number>;
  claimed_until: Instant | null;
  /** The random id of the submit's claim while one holds the session (migration 0023); null otherwise. */
  claim_id: string | null;
  /** How many times a claim that ran out was taken over by another submit (migration 0023). */
  claim_takeovers: Defaulted<number>;
  /** credit_card or bank_account, once captured. */
  method_type: string | null;
  /**
   * The kept card's token of our own (the payment method's to be; docs/spec-decisions.md, "Payment-method tokens"):
   * what paymentMethodToken shows. Never the vault's.
   */
  method_token: string | null;
  /** The card's token in the gateway's vault, sealed (SecretBox); also while a challenge waits (migration 0067). */
  method_vault_token_sealed: string | null;
  card_type: string | null;
  last_four: string | null;
  name_on_card: string | null;
  last_name_on_card: string | null;
  expiry_month: number | null;
  expiry_year: number | null;
  /** SecretBox-sealed JSON of the bank account's details; never a clear account number in the database. */
  bank_account_sealed: string | null;
  bank_name: string | null;
  /** The pending 3-D Secure challenge's random id while the state is challenging (migration 0019). */
  challenge_id: string | null;
  charge_id: string | null;
  /** settled or pending. */
  charge_state: string | null;
  /**
   * The setup started at a hosted-fields provider (migration 0035): SecretBox-sealed JSON of its reference and what
   * the frame confirms it with; null before a submit and after a failed one.
   */
  provider_setup_sealed: string | null;
  /** The provider's reference of that setup or sale, no secret: what its webhook names (migration 0057). */
  provider_ref: string | null;
  /** When the setup was started at the provider, wall time: the run asks about it after a delay (migration 0057). */
  provider_started_at: Instant | null;
  customer_id: number | null;
  payment_method_id: number | null;
  payment_id: number | null;
  created_at: Instant;
  expires_at: Instant;
  captured_at: Instant | null;
  completed_at: Instant | null;
  updated_at: Instant;
}

/** The capture frame's failed submits by client address, across accounts (migration 0020). */
export interface CaptureAddressFailuresTable {
  id: Id;
  client_address: string;
  failed_at: Instant;
}

/** The widgets module's tables, as Kysely's Database type holds them. */
export interface WidgetsTables {
  capture_sessions: CaptureSessionsTable;
  capture_address_failures: CaptureAddressFailuresTable;
}
