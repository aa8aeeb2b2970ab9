import type { Defaulted, Id, Instant, PlainDateColumn } from './columnTypes.ts';

/** The tables of gateway calls, the test gateway's simulated provider and collection attempts (see schema.ts). */
export interface GatewayCallsTable {
  id: Id;
  account_id: number;
  gateway_id: number;
  /** vault_card, charge, refund, validate_bank_account. */
  operation: string;
  idempotency_key: string | null;
  /** What was asked, as JSON, masked: never a card number or a clear account number. */
  request: string;
  /** ok, declined, error or timeout. */
  outcome: string;
  result: string | null;
  /** The operation that undoes this one, where there is one (a charge is undone by a refund). */
  undo_operation: string | null;
  /** Wall-clock time. */
  started_at: Instant;
  duration_ms: number;
}

export interface TestGatewayVaultTable {
  token: string;
  gateway_id: number;
  /** What the simulated card does (docs/gateways.md), chosen from its number when it was vaulted. */
  scenario: string;
  created_at: Instant;
}

export interface TestGatewayChargesTable {
  gateway_id: number;
  idempotency_key: string;
  charge_id: string;
  token: string;
  amount_minor: number;
  currency_code: string;
  outcome: string;
  reason: string | null;
  raw_code: string | null;
  created_at: Instant;
  /** A refund's row: the charge it refunds (its outcome is `refunded`). */
  refunds_charge_id: string | null;
}

export interface CollectionAttemptsTable {
  id: Id;
  account_id: number;
  invoice_id: number;
  customer_id: number;
  attempt_no: number;
  idempotency_key: string;
  gateway_id: number;
  payment_method_id: number;
  token: string;
  amount_minor: number;
  currency_code: string;
  /** started (the gateway may have been asked), succeeded, pending, declined or error. */
  state: string;
  reason: string | null;
  raw_code: string | null;
  /** soft, hard, customer_action or technical (src/core/dunning.ts). */
  retry_class: string | null;
  payment_id: number | null;
  /** The provider's id of the charge made (what a refund names). */
  charge_id: string | null;
  /** Business time. */
  started_at: Instant;
  /** Wall-clock time: an attempt still `started` long after it is finished by the next collection run. */
  leased_at: Instant;
  finished_at: Instant | null;
}

export interface RefundAttemptsTable {
  id: Id;
  account_id: number;
  payment_id: number;
  /** The positive refund adjustment that reserves the money while the gateway is asked. */
  adjustment_id: number;
  gateway_id: number;
  charge_id: string;
  amount_minor: number;
  currency_code: string;
  idempotency_key: string;
  /** started, succeeded or declined. */
  state: string;
  refund_id: string | null;
  raw_code: string | null;
  /** Business time. */
  started_at: Instant;
  /** Wall-clock time: one still `started` long after is finished by the next run. */
  leased_at: Instant;
  /**
   * What happens to the invoices the refunded money paid: `credit` (a credit note covers them) or `reopen` (they
   * owe it again); null for an attempt made before the choice existed, which took only unallocated money.
   */
  paid_invoices: string | null;
  /** The credit note issued with the refund (`credit`, when it took money from invoices). */
  credit_note_id: number | null;
}

/** What a refund attempt took from each invoice its payment paid (given back when the gateway refuses). */
export interface RefundAttemptInvoicesTable {
  refund_attempt_id: number;
  account_id: number;
  invoice_id: number;
  amount_minor: number;
}

export interface BatchesTable {
  id: Id;
  account_id: number;
  batch_token: string;
  currency_code: string;
  gateway_id: number;
  action_date: PlainDateColumn;
  notes: string | null;
  /** src/core/batches.ts BATCH_STATES. */
  state: string;
  build_error: string | null;
  /** debit_order, ach or sepa; null until the first line. */
  rail: string | null;
  is_auto: Defaulted<boolean | number>;
  provider_ref: string | null;
  reports_read_on: PlainDateColumn | null;
  file_sealed: string | null;
  file_downloaded_at: Instant | null;
  created_at: Instant;
  submitted_at: Instant | null;
  processed_at: Instant | null;
  cancelled_at: Instant | null;
  updated_at: Instant;
}

export interface BatchLinesTable {
  payment_id: number;
  account_id: number;
  batch_id: number;
  invoice_id: number | null;
  created_at: Instant;
}

export interface TestGatewayBatchesTable {
  gateway_id: number;
  idempotency_key: string;
  provider_ref: string;
  /** JSON: each line's outcome and the day the simulated provider reports it. */
  results: string;
  created_at: Instant;
  cancelled_at: Instant | null;
}
