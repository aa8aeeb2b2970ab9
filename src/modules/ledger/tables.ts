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

/**
 * A tax credit note that is not a credit note of /v1/credits (0055; docs/tax.md, "Tax credit notes"): a negative
 * adjustment's, or prepaid credit's taking the VAT off an invoice after its issue. Numbered from the credit notes'
 * sequence.
 */
export interface TaxCreditNotesTable {
  id: Id;
  account_id: number;
  customer_id: number;
  currency_code: string;
  /** adjustment (source_id: the adjustment) or prepaid_credit (source_id: the invoice it reduces). */
  source_type: string;
  source_id: number;
  credit_number: string;
  issue_date: PlainDateColumn;
  reason: string;
  created_at: Instant;
}

/** What a credit takes off an invoice's consideration, with its VAT (0055; docs/tax.md): append-only, signed. */
export interface InvoiceReductionsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  invoice_id: number;
  /** credit_note, adjustment or credit_grant. */
  source_type: string;
  source_id: number;
  /** A prepaid credit's document when made after the invoice's issue; null otherwise. */
  tax_credit_note_id: number | null;
  amount_minor: number;
  tax_minor: number;
  /** The VAT by the invoice's taxes it reduces, as JSON (reductionTaxParts.ts); null: a share of the whole. */
  tax_parts: ColumnType<string | null, string | null | undefined, string | null>;
  reduction_date: PlainDateColumn;
  created_at: Instant;
}

/** The ledger module's tables, as Kysely's Database type holds them. */
export interface LedgerTables {
  payments: PaymentsTable;
  credit_note_numbers: CreditNoteNumbersTable;
  credit_notes: CreditNotesTable;
  adjustments: AdjustmentsTable;
  allocations: AllocationsTable;
  tax_credit_notes: TaxCreditNotesTable;
  invoice_reductions: InvoiceReductionsTable;
}
