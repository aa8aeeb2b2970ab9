import type { ColumnType } from 'kysely';
import type { SqlBool, Instant, Id, PlainDateColumn, Decimal } from '../../storage/columnTypes.ts';

// The tables the subscriptions module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

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
  /** Why it was cancelled, when the customer said (0074): a reason code of the account's retention rules. */
  cancel_reason: string | null;
  /** Its pause (0072, docs/subscriptions.md "Pause and resume"): null when never paused. */
  pause_date: PlainDateColumn | null;
  resume_date: PlainDateColumn | null;
  pause_credit: string | null;
  resume_billing_anchor: string | null;
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
  /** Started when paid (0073): the day it expires unpaid; the day it was paid; the day it expired unpaid. */
  incomplete_until: PlainDateColumn | null;
  activated_on: PlainDateColumn | null;
  incomplete_expired_on: PlainDateColumn | null;
  /** A resume waiting for its invoice's payment (0076): the day that invoice is voided unpaid; the day it was paid. */
  resume_pay_by: PlainDateColumn | null;
  resume_paid_on: PlainDateColumn | null;
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

/** Metered usage billed (0043): a metric's quantity per group and usage period, or a late correction of it. */
export interface SubscriptionMeteredUsageTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  component_id: number;
  metric_id: number;
  /** '' when the metric has no GroupBy. */
  group_value: string;
  period_start: PlainDateColumn;
  period_end: PlainDateColumn;
  /** 0: the period's first billing; 1, 2, …: what late events added since. */
  correction_no: number;
  quantity: Decimal;
  invoice_id: number;
  created_at: Instant;
}

/** A subscription's progressive billing threshold (0050), in minor units of its currency; no row: off. */
export interface SubscriptionProgressiveThresholdsTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  threshold_minor: number;
  updated_at: Instant;
}

/** What a progressive invoice billed of a component's group in a usage period (0050). */
export interface SubscriptionProgressiveUsageTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  component_id: number;
  /** '' when the metric has no GroupBy. */
  group_value: string;
  period_start: PlainDateColumn;
  period_end: PlainDateColumn;
  /** The period's quantity so far when the invoice was made. */
  quantity: Decimal;
  /** What this invoice added for it, before coupons. */
  amount_minor: number;
  /** What the invoice's coupons took off it (0052). */
  discount_minor: ColumnType<number, number | undefined, number>;
  invoice_id: number;
  created_at: Instant;
}

/** A pause a customer made itself, in the portal or by taking a retention offer (0075): what MaxPausesPerYear counts. */
export interface SubscriptionSelfPausesTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  /** portal or retention. */
  source: string;
  pause_date: PlainDateColumn;
  resume_date: PlainDateColumn;
  /** The account's calendar day it was made on. */
  made_on: PlainDateColumn;
  created_at: Instant;
}

/** The subscriptions module's tables, as Kysely's Database type holds them. */
export interface SubscriptionsTables {
  subscriptions: SubscriptionsTable;
  subscription_components: SubscriptionComponentsTable;
  subscription_usage: SubscriptionUsageTable;
  subscription_periods: SubscriptionPeriodsTable;
  subscription_credits: SubscriptionCreditsTable;
  subscription_metered_usage: SubscriptionMeteredUsageTable;
  subscription_progressive_thresholds: SubscriptionProgressiveThresholdsTable;
  subscription_progressive_usage: SubscriptionProgressiveUsageTable;
  subscription_self_pauses: SubscriptionSelfPausesTable;
}
