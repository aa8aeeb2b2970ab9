import type { SqlBool, Instant, Id, PlainDateColumn, Decimal } from '../../storage/columnTypes.ts';

// The tables the mandates module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/** An eMandate (migration 0017; docs/design/mandates.md). */
export interface EmandatesTable {
  id: Id;
  account_id: number;
  /** The SHA-256 of the token (hex): the token itself is never stored (migration 0022). */
  token_sha256: string;
  /** What the token is derived from with the service's key; null for a mandate made before migration 0022. */
  token_seed: string | null;
  customer_id: number | null;
  payment_method_id: number | null;
  flow: string;
  status: string;
  name: string;
  last_name: string;
  company: string | null;
  trading_as: string | null;
  tel: string | null;
  email: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  country_iso_code: string | null;
  postal_code: string | null;
  bank_debit_method: string;
  bank_name: string;
  bank_branch_code: string;
  bank_acc_holder: string;
  /** SecretBox-sealed; never a clear account number in the database. */
  bank_acc_number_sealed: string;
  bank_last_four: string;
  bank_account_type: string;
  currency_code: string;
  debit_frequency: string;
  debit_action_day: number;
  debit_start_date: PlainDateColumn;
  debit_end_date: PlainDateColumn | null;
  debit_amt_minor: number;
  debit_max_amt_minor: number;
  debit_escalation: Decimal | null;
  debit_name_on_stmt: string;
  debit_contract_ref: string;
  debit_variable_amts: SqlBool;
  is_customer_editable: SqlBool;
  is_company_signee: SqlBool;
  auth_domain: string | null;
  return_url: string | null;
  cancel_url: string | null;
  expires_at: Instant;
  signed_at: Instant | null;
  signed_name: string | null;
  signed_client_address: string | null;
  signed_user_agent: string | null;
  consent_text: string | null;
  consent_sha256: string | null;
  document_sha256: string | null;
  declined_at: Instant | null;
  cancelled_at: Instant | null;
  created_at: Instant;
  updated_at: Instant;
  /** DebiCheck (migration 0065; docs/design/mandates.md, "DebiCheck"): null for an ordinary mandate. */
  debicheck_contract_type: string | null;
  debicheck_tracking_days: number | null;
  debicheck_first_amt_minor: number | null;
  debicheck_id_kind: string | null;
  /** SecretBox-sealed; never a clear identity number in the database. */
  debicheck_id_sealed: string | null;
  debicheck_id_ending: string | null;
  debicheck_status: string | null;
  debicheck_gateway_id: number | null;
  debicheck_contract_reference: string | null;
  debicheck_requested_at: Instant | null;
  debicheck_expires_at: Instant | null;
  debicheck_answered_at: Instant | null;
  debicheck_reason: string | null;
}

/** The mandates module's tables, as Kysely's Database type holds them. */
export interface MandatesTables {
  emandates: EmandatesTable;
}
