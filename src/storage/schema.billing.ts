import type { ColumnType } from 'kysely';
import type { SqlBool, Instant, Id, PlainDateColumn, Defaulted, Decimal } from './columnTypes.ts';

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
}

export interface InvoiceTaxesTable {
  id: Id;
  account_id: number;
  invoice_id: number;
  name: string;
  perc: Decimal;
}

export interface SubscriptionsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  package_id: number;
  package_version_id: number;
  package_rate_term_id: number;
  currency_code: string;
  term: number;
  term_type: string;
  charge_price: Decimal;
  setup_fee: Decimal;
  trial_fee: Decimal;
  trial_period: number;
  trial_period_type: string;
  start_date: PlainDateColumn;
  end_date: PlainDateColumn | null;
  trial_end_date: PlainDateColumn | null;
  is_pro_rata: SqlBool;
  first_prorata_sync_date: PlainDateColumn | null;
  anchor_date: PlainDateColumn;
  /** The day a change made now kept the anchor (0006): a period may start that day off the cycle. */
  off_cycle_start: PlainDateColumn | null;
  /** The day of the month its cycle renews on (0030): kept so that days 29–31 return after a short month. */
  bill_cycle_day: number | null;
  num_days_before_to_inv: number;
  cancel_type: string | null;
  cancel_date: PlainDateColumn | null;
  cancelled_at: Instant | null;
  last_inv_date: PlainDateColumn | null;
  last_renew_date: PlainDateColumn | null;
  next_renew_date: PlainDateColumn | null;
  next_inv_date: PlainDateColumn | null;
  period_count: number;
  setup_billed: SqlBool;
  pending_change: string | null;
  parked_reason: string | null;
  parked_at: Instant | null;
  lease_until: Instant | null;
  /** Its own collection, copied to its invoices (0012); null: they follow the customer's settings. */
  collection_method: string | null;
  gateway_id: number | null;
  customer_payment_method_id: number | null;
  created_at: Instant;
  updated_at: Instant;
}

export interface SubscriptionComponentsTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  component_id: number;
  component_version_id: number;
  created_at: Instant;
}

export interface SubscriptionUsageTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  component_id: number;
  period_start: PlainDateColumn;
  period_end: PlainDateColumn;
  num_units: Decimal;
  memo: string | null;
  is_set_units: SqlBool;
  invoice_id: number | null;
  updated_at: Instant;
}

export interface SubscriptionPeriodsTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  period_no: number;
  period_start: PlainDateColumn;
  period_end: PlainDateColumn;
  /** trial, stub (pro-rated) or term. */
  kind: string;
  charge_price: Decimal;
  amount_minor: number;
  invoice_id: number | null;
  /** amount_minor includes the taxes: the period was billed at a tax-inclusive price (0029). */
  is_tax_inclusive: ColumnType<boolean | number, boolean | undefined, boolean>;
}

export interface SubscriptionCreditsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  subscription_id: number;
  currency_code: string;
  amount_minor: number;
  descrip: string;
  period_start: PlainDateColumn;
  period_end: PlainDateColumn;
  adjustment_id: number | null;
  created_at: Instant;
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

export interface PaymentMethodsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  gateway_id: number | null;
  /** credit_card or bank_account. */
  method_type: string;
  /** The gateway vault's token for a card; a token of our own for a bank account. */
  token: string;
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
  created_at: Instant;
  updated_at: Instant;
}

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
