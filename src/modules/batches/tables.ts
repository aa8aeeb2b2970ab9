import type { Instant, Id, PlainDateColumn, Defaulted } from '../../storage/columnTypes.ts';

// The tables the batches module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

export interface BatchesTable {
  id: Id;
  account_id: number;
  batch_token: string;
  currency_code: string;
  gateway_id: number;
  action_date: PlainDateColumn;
  notes: string | null;
  /** src/modules/batches/batchRules.ts BATCH_STATES. */
  state: string;
  build_error: string | null;
  /** debit_order, ach or sepa; null until the first line. */
  rail: string | null;
  is_auto: Defaulted<boolean | number>;
  /** An automatic batch of DebiCheck collections only (docs/gateways/netcash.md, "DebiCheck"). */
  is_debicheck: Defaulted<boolean | number>;
  provider_ref: string | null;
  reports_read_on: PlainDateColumn | null;
  file_sealed: string | null;
  file_downloaded_at: Instant | null;
  /** Netcash's file token of a file uploaded through its web service, and when its load report said it loaded. */
  upload_token: string | null;
  upload_accepted_at: Instant | null;
  /** The business date the staff were last told the batch's file waits to reach Netcash. */
  file_reminded_on: PlainDateColumn | null;
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
  /** The day its receipt goes, once its rail's return window passed; null when none waits (batchReceipts.service.ts). */
  receipt_due_on: PlainDateColumn | null;
}

/** A day's Netcash statement a netcash gateway fetched: asked under a polling id, applied to its batches once. */
export interface NetcashStatementsTable {
  id: Id;
  account_id: number;
  gateway_id: number;
  statement_date: PlainDateColumn;
  polling_id: string | null;
  next_ask_at: Instant | null;
  applied_at: Instant | null;
  created_at: Instant;
}

/** The batches module's tables, as Kysely's Database type holds them. */
export interface BatchesTables {
  batches: BatchesTable;
  batch_lines: BatchLinesTable;
  netcash_statements: NetcashStatementsTable;
}
