import type { ColumnType } from 'kysely';
import type { SqlBool, Instant, Id, PlainDateColumn, Defaulted, Decimal } from '../../storage/columnTypes.ts';

// The tables the invoicing module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/** The tables of invoices, subscriptions, recurring invoices and money movements (see schema.ts). */
export interface InvoicesTable {
  id: Id;
  account_id: number;
  customer_id: number;
  invoice_num: number | null;
  reference: string | null;
  po_number: string | null;
  currency_code: string;
  invoice_date: PlainDateColumn;
  due_date: PlainDateColumn;
  date_sent: Instant | null;
  is_draft: SqlBool;
  is_cancelled: SqlBool;
  cancelled_at: Instant | null;
  /** Auto (made by the bill run) or App (made through the API). */
  source: string;
  collection_method: string | null;
  gateway_id: number | null;
  customer_payment_method_id: number | null;
  /** Why the customer's settings cannot collect it, once told (null: collected, or following them is fine). */
  collection_problem: string | null;
  num_tries: Defaulted<number>;
  next_try_date: Instant | null;
  notes: string | null;
  terms: string | null;
  total_minor: number;
  paid_actual_minor: Defaulted<number>;
  paid_pending_minor: Defaulted<number>;
  negative_adjs_minor: Defaulted<number>;
  subscription_id: number | null;
  recurring_invoice_id: number | null;
  created_at: Instant;
  updated_at: Instant;
}

export interface InvoiceChargesTable {
  id: Id;
  account_id: number;
  invoice_id: number;
  line: number;
  descrip: string;
  qty: Decimal;
  /** NOTE: the unit price as listed: it includes the invoice's taxes when is_tax_inclusive (0029). */
  unit_cost_ex: Decimal;
  is_tax_inclusive: ColumnType<boolean | number, boolean | undefined, boolean>;
  amount_ex_minor: number;
  amount_inc_minor: number;
  display_order: number;
  period_start: PlainDateColumn | null;
  period_end: PlainDateColumn | null;
  /** A line of metered usage (0043): the metric, the group ('' for none) and the quantity it counted. */
  metric_code: ColumnType<string | null, string | null | undefined, string | null>;
  usage_group: ColumnType<string | null, string | null | undefined, string | null>;
  usage_quantity: ColumnType<string | null, string | null | undefined, string | null>;
  /** The component whose usage the line bills (0053); null on other lines. */
  component_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** The positions of the invoice's taxes that apply to the line, comma-separated ("0,1"); null: all (0077). */
  tax_positions: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface InvoiceTaxesTable {
  id: Id;
  account_id: number;
  invoice_id: number;
  name: string;
  perc: Decimal;
}

export interface RecurringInvoicesTable {
  id: Id;
  account_id: number;
  customer_id: number;
  currency_code: string;
  reference: string | null;
  term: number;
  term_type: string;
  start_date: PlainDateColumn;
  end_date: PlainDateColumn | null;
  last_inv_date: PlainDateColumn | null;
  last_renew_date: PlainDateColumn | null;
  next_renew_date: PlainDateColumn | null;
  next_inv_date: PlainDateColumn | null;
  period_count: number;
  num_days_before_to_inv: number;
  is_cancelled: SqlBool;
  cancelled_at: Instant | null;
  suspended_at: Instant | null;
  collection_method: string | null;
  gateway_id: number | null;
  customer_payment_method_id: number | null;
  invoice_terms: string | null;
  invoice_notes: string | null;
  parked_reason: string | null;
  parked_at: Instant | null;
  lease_until: Instant | null;
  created_at: Instant;
  updated_at: Instant;
}

export interface RecurringInvoiceChargesTable {
  id: Id;
  account_id: number;
  recurring_invoice_id: number;
  line: number;
  descrip: string;
  qty: Decimal;
  /** NOTE: the unit price as listed: it includes the invoice's taxes when is_tax_inclusive (0029). */
  unit_cost_ex: Decimal;
  is_tax_inclusive: ColumnType<boolean | number, boolean | undefined, boolean>;
  display_order: number;
}

export interface RecurringInvoiceTaxesTable {
  id: Id;
  account_id: number;
  recurring_invoice_id: number;
  name: string;
  perc: Decimal;
}

export interface RecurringInvoicePeriodsTable {
  id: Id;
  account_id: number;
  recurring_invoice_id: number;
  period_no: number;
  period_start: PlainDateColumn;
  period_end: PlainDateColumn;
  invoice_id: number;
}

/** The invoicing module's tables, as Kysely's Database type holds them. */
/** The last invoice number each account took (0039); an account without a row has taken none. */
export interface InvoiceNumbersTable {
  account_id: number;
  last_num: Defaulted<number>;
}

export interface InvoicingTables {
  invoice_numbers: InvoiceNumbersTable;
  invoices: InvoicesTable;
  invoice_charges: InvoiceChargesTable;
  invoice_taxes: InvoiceTaxesTable;
  recurring_invoices: RecurringInvoicesTable;
  recurring_invoice_charges: RecurringInvoiceChargesTable;
  recurring_invoice_taxes: RecurringInvoiceTaxesTable;
  recurring_invoice_periods: RecurringInvoicePeriodsTable;
}
