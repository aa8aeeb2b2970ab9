import type { Decimal, Id, Instant, PlainDateColumn, SqlBool } from '../../storage/columnTypes.ts';

/** A feature a package gives (docs/usage.md, "Entitlements"). */
export interface FeaturesTable {
  id: Id;
  account_id: number;
  code: string;
  name: string;
  descrip: string | null;
  /** boolean | limit | config */
  type: string;
  /** A limit feature's metric; null for the other types. */
  metric_id: number | null;
  created_at: Instant;
  updated_at: Instant;
}

/** A feature's value given by a package, or set on one subscription (exactly one of the two). */
export interface FeatureValuesTable {
  id: Id;
  account_id: number;
  feature_id: number;
  package_id: number | null;
  subscription_id: number | null;
  enabled: SqlBool;
  /** A limit feature's quantity per billing period; null: unlimited. */
  limit_quantity: Decimal | null;
  config_value: string | null;
  created_at: Instant;
  updated_at: Instant;
}

/** The answer of an accepted check-and-record, kept by its transaction_id. */
export interface EntitlementConsumptionsTable {
  account_id: number;
  transaction_id: string;
  customer_id: number;
  feature_id: number;
  subscription_id: number;
  quantity: Decimal;
  limit_quantity: Decimal | null;
  used_after: Decimal;
  period_start: PlainDateColumn;
  period_end: PlainDateColumn;
  created_at: Instant;
}

/** The entitlements module's tables, as Kysely's Database type holds them. */
export interface EntitlementsTables {
  features: FeaturesTable;
  feature_values: FeatureValuesTable;
  entitlement_consumptions: EntitlementConsumptionsTable;
}
