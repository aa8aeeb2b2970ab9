import type { Instant, Id, PlainDateColumn } from '../../storage/columnTypes.ts';

// The tables the collections module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

export interface CollectionAttemptsTable {
  id: Id;
  account_id: number;
  invoice_id: number;
  customer_id: number;
  attempt_no: number;
  idempotency_key: string;
  gateway_id: number;
  payment_method_id: number;
  /**
   * The vault token charged, sealed (docs/gateways.md, "Provider tokens are sealed"): an unanswered attempt is asked
   * about again with it, whatever became of the method.
   */
  token_sealed: string;
  amount_minor: number;
  currency_code: string;
  /** started (the gateway may have been asked), succeeded, pending, declined or error. */
  state: string;
  reason: string | null;
  raw_code: string | null;
  /** soft, hard, customer_action or technical (src/modules/gateways/failureReasons.ts). */
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

/** A reminder sent for an invoice the customer pays itself, once per invoice and day of the schedule (migration 0038). */
export interface InvoiceRemindersTable {
  id: Id;
  account_id: number;
  invoice_id: number;
  /** The day of the schedule it was sent for: days from the due date, negative before it. */
  day_offset: number;
  sent_on: PlainDateColumn;
  created_at: Instant;
}

/** The collections module's tables, as Kysely's Database type holds them. */
export interface CollectionsTables {
  collection_attempts: CollectionAttemptsTable;
  refund_attempts: RefundAttemptsTable;
  refund_attempt_invoices: RefundAttemptInvoicesTable;
  invoice_reminders: InvoiceRemindersTable;
}
