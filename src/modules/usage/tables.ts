import type { ColumnType } from 'kysely';
import type { Id, Instant, SqlBool } from '../../storage/columnTypes.ts';

// The tables the usage module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/**
 * A 64-bit integer that may pass 2^53 (sums of ten-thousandths): written as a bigint, read as text (queries cast
 * it), never as a JS number.
 */
export type BigIntColumn = ColumnType<string, bigint, bigint>;

export interface UsageTransactionsTable {
  /** The event's id. */
  id: Id;
  account_id: number;
  transaction_id: string;
  customer_id: number;
  occurred_at: Instant;
}

export interface UsageEventsTable {
  id: number;
  account_id: number;
  customer_id: number;
  subscription_id: number | null;
  metric_id: number;
  transaction_id: string;
  occurred_at: Instant;
  properties: string;
  counted: SqlBool;
  value: BigIntColumn;
  unique_value: string;
  group_value: string;
  received_at: Instant;
}

export interface UsageRollupsTable {
  account_id: number;
  customer_id: number;
  /** 0: events that name no subscription. */
  subscription_id: number;
  metric_id: number;
  group_value: string;
  hour: Instant;
  event_count: number;
  value_sum: BigIntColumn;
  value_max: BigIntColumn;
  latest_value: BigIntColumn;
  latest_at: Instant;
  latest_id: number;
  weighted_seconds: BigIntColumn;
}

export interface UsageUniqueValuesTable {
  account_id: number;
  customer_id: number;
  subscription_id: number;
  metric_id: number;
  group_value: string;
  hour: Instant;
  unique_value: string;
}

/**
 * What an account has stored of usage events (docs/usage.md, "Limits"): kept in the insert's transaction, so that
 * reading it never scans the events. Bigints, read as text or numbers by dialect (Number() reads them).
 */
export interface UsageStorageTable {
  account_id: number;
  event_count: ColumnType<string | number, number, number>;
  /** The events' stored size as usageStorage.ts counts it. */
  stored_bytes: ColumnType<string | number, number, number>;
}

/** The usage module's tables, as Kysely's Database type holds them. */
export interface UsageTables {
  usage_transactions: UsageTransactionsTable;
  usage_events: UsageEventsTable;
  usage_rollups: UsageRollupsTable;
  usage_unique_values: UsageUniqueValuesTable;
  usage_storage: UsageStorageTable;
}
