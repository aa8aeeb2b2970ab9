import type { ColumnType } from 'kysely';
import type { Instant, Id, PlainDateColumn, Defaulted } from '../../storage/columnTypes.ts';

// The tables the ledger module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

export interface PaymentsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  currency_code: string;
  amount_minor: number;
  /** The sum of the payment's allocations, kept in the allocating transaction. */
  allocated_minor: Defaulted<number>;
  payment_date: PlainDateColumn;
  method: string;
  /** settled, pending or failed. */
  state: string;
  memo: string | null;
  ref: string | null;
  payment_method_id: number | null;
  /** Why a payment collected through a gateway failed: the normalised reason and the gateway's own code. */
  failure_reason: string | null;
  failure_code: string | null;
  created_at: Instant;
  updated_at: Instant;
}

export interface CreditNotesTable {
  id: Id;
  account_id: number;
  customer_id: number;
  currency_code: string;
  amount_minor: number;
  allocated_minor: Defaulted<number>;
  credit_date: PlainDateColumn;
  credit_number: string;
  memo: string | null;
  created_at: Instant;
  updated_at: Instant;
}

export interface AdjustmentsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  /** positive (raises what is owed; an allocation target) or negative (lowers it; an allocation source). */
  direction: string;
  adjustment_type: string;
  currency_code: string;
  amount_minor: number;
  /** Allocated to a positive adjustment, or from a negative one. */
  allocated_minor: Defaulted<number>;
  adjustment_date: PlainDateColumn;
  due_date: PlainDateColumn | null;
  ref: string | null;
  memo: string | null;
  /** The subscription whose cancellation or change this credit was issued for. */
  subscription_id: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: Instant;
  updated_at: Instant;
}

export interface AllocationsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  /** payment, credit_note or adjustment (a negative one). */
  source_type: string;
  source_id: number;
  /** invoice or adjustment (a positive one). */
  target_type: string;
  target_id: number;
  amount_minor: number;
  created_at: Instant;
  updated_at: Instant;
}

/** The last credit note number each account took (0039, first 0015); an account without a row has taken none. */
export interface CreditNoteNumbersTable {
  account_id: number;
  last_num: Defaulted<number>;
}

/** The ledger module's tables, as Kysely's Database type holds them. */
export interface LedgerTables {
  payments: PaymentsTable;
  credit_note_numbers: CreditNoteNumbersTable;
  credit_notes: CreditNotesTable;
  adjustments: AdjustmentsTable;
  allocations: AllocationsTable;
}
