import type { Id, Instant, PlainDateColumn } from '../../storage/columnTypes.ts';

// The tables the retention module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/** An account's retention rules (docs/portal.md, "Cancel with a way to stay"), as JSON. */
export interface RetentionRulesTable {
  account_id: number;
  rules: string;
  updated_at: Instant;
}

/** An offer shown, taken or declined in a cancel, or the cancellation itself, with the reason given. */
export interface RetentionRecordsTable {
  id: Id;
  account_id: number;
  subscription_id: number;
  customer_id: number;
  /** shown | taken | declined | cancelled */
  kind: string;
  reason: string;
  /** coupon | package | pause; null: a cancellation with no offer. */
  offer_kind: string | null;
  /** The offer as the rules named it, JSON. */
  offer: string | null;
  made_on: PlainDateColumn;
  created_at: Instant;
}

/** The retention module's tables, as Kysely's Database type holds them. */
export interface RetentionTables {
  retention_rules: RetentionRulesTable;
  retention_records: RetentionRecordsTable;
}
