import type { Decimal, Id, Instant, PlainDateColumn, SqlBool } from '../../storage/columnTypes.ts';

/** A threshold on a subscription's usage so far in its period (docs/usage.md, "Alerts"). */
export interface UsageAlertsTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  /** The subscription's customer: the evaluator finds alerts by the customers whose events arrived. */
  customer_id: number;
  name: string;
  /** quantity | amount */
  kind: string;
  /** Null: an amount alert over all the subscription's metered components. */
  metric_id: number | null;
  /** A grouped metric's group; null: every group. */
  usage_group: string | null;
  /** A quantity alert's threshold, a decimal of at most 4 places. */
  threshold_quantity: Decimal | null;
  /** An amount alert's threshold, in minor units of the subscription's currency. */
  threshold_minor: number | null;
  /** True until an evaluation has read the alert as it now is. */
  needs_check: SqlBool;
  /** Incremented by each edit: an evaluation marks checked only the version it read. */
  check_version: number;
  created_at: Instant;
  updated_at: Instant;
  deleted_at: Instant | null;
}

/** An alert fired in one period: at most one row per (alert, period start), whoever evaluates. */
export interface UsageAlertFiringsTable {
  id: Id;
  account_id: number;
  alert_id: number;
  period_start: PlainDateColumn;
  period_end: PlainDateColumn;
  threshold_quantity: Decimal | null;
  threshold_minor: number | null;
  value_quantity: Decimal | null;
  value_minor: number | null;
  fired_at: Instant;
}

/** The usage alerts module's tables, as Kysely's Database type holds them. */
export interface UsageAlertsTables {
  usage_alerts: UsageAlertsTable;
  usage_alert_firings: UsageAlertFiringsTable;
}
