import type { ColumnType } from 'kysely';
import type { SqlBool, Instant, Id, Decimal, Defaulted, PlainDateColumn } from '../../storage/columnTypes.ts';

// The tables the catalogue module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

export interface AccountCurrenciesTable {
  account_id: number;
  currency_code: string;
  created_at: Instant;
}

export interface TaxSettingsTable {
  id: Id;
  account_id: number;
  name: string;
  created_at: Instant;
}

export interface TaxRulesTable {
  id: Id;
  account_id: number;
  tax_setting_id: number;
  perc: Decimal;
  country_id: number | null;
  country_state_id: number | null;
  tax_number: string | null;
}

/** A rule's rate from a date on (0071); the rule's own perc is its rate before the first of these. */
export interface TaxRuleRatesTable {
  id: Id;
  account_id: number;
  tax_setting_id: number;
  tax_rule_id: number;
  perc: Decimal;
  effective_from: PlainDateColumn;
  created_at: Instant;
}

export interface PackageGroupsTable {
  id: Id;
  account_id: number;
  group_name: string;
  created_at: Instant;
}

export interface PackagesTable {
  id: Id;
  account_id: number;
  package_group_id: number;
  package_code: string;
  name: string;
  descrip: string | null;
  is_active: SqlBool;
  last_version_no: number;
  created_at: Instant;
}

export interface PackageVersionsTable {
  id: Id;
  account_id: number;
  package_id: number;
  version_no: number;
  version_name: string;
  is_default: SqlBool;
  is_active: SqlBool;
  created_at: Instant;
}

export interface PackageVersionRatesTable {
  id: Id;
  account_id: number;
  package_version_id: number;
  currency_code: string;
  setup_fee: Decimal;
  trial_fee: Decimal;
  trial_period: number;
  trial_period_type: string;
  /** Overrides the account's is_tax_inclusive; null follows it (0029). */
  is_tax_inclusive: ColumnType<boolean | number | null, boolean | null | undefined, boolean | null>;
}

export interface PackageRateTermsTable {
  id: Id;
  account_id: number;
  package_rate_id: number;
  charge_price: Decimal;
  charge_term: number;
  charge_term_type: string;
}

export interface ComponentsTable {
  id: Id;
  account_id: number;
  package_group_id: number;
  component_code: string;
  name: string;
  descrip: string | null;
  is_active: SqlBool;
  unit_name: string;
  term: number;
  term_type: string;
  type: string;
  scheme: string;
  last_version_no: number;
  created_at: Instant;
  /** The billable metric a usage component's quantity is read from (0041); null: set per period by the client. */
  metric_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ComponentVersionsTable {
  id: Id;
  account_id: number;
  component_id: number;
  version_no: number;
  version_name: string;
  is_default: SqlBool;
  is_active: SqlBool;
  created_at: Instant;
}

export interface ComponentVersionCurrenciesTable {
  id: Id;
  account_id: number;
  component_version_id: number;
  currency_code: string;
  /** The package scheme's blocks (0028); null under the bracket schemes. */
  package_size: Decimal | null;
  package_price: Decimal | null;
  free_units: Decimal | null;
  /** Overrides the account's is_tax_inclusive; null follows it (0029). */
  is_tax_inclusive: ColumnType<boolean | number | null, boolean | null | undefined, boolean | null>;
}

export interface ComponentBracketsTable {
  id: Id;
  account_id: number;
  component_version_currency_id: number;
  price: Decimal;
  qty_from: Decimal;
  qty_till: Decimal | null;
  /** 0028; null = no flat fee. */
  flat_price: Decimal | null;
}

/**
 * The account's catalogue revision (0039, first 0031), moved on by every write to its packages or components; an
 * account without a row is at revision 0.
 */
export interface CatalogueRevisionsTable {
  account_id: number;
  revision: Defaulted<number>;
}

/** A billable metric (0041; docs/design/usage.md). `filters` is JSON: [{ property, values }]. */
export interface BillableMetricsTable {
  id: Id;
  account_id: number;
  code: string;
  name: string;
  descrip: string | null;
  aggregation: string;
  property: string | null;
  filters: string;
  group_by: string | null;
  archived_at: Instant | null;
  created_at: Instant;
}

/** The catalogue module's tables, as Kysely's Database type holds them. */
export interface CatalogueTables {
  account_currencies: AccountCurrenciesTable;
  billable_metrics: BillableMetricsTable;
  catalogue_revisions: CatalogueRevisionsTable;
  tax_settings: TaxSettingsTable;
  tax_rules: TaxRulesTable;
  tax_rule_rates: TaxRuleRatesTable;
  package_groups: PackageGroupsTable;
  packages: PackagesTable;
  package_versions: PackageVersionsTable;
  package_version_rates: PackageVersionRatesTable;
  package_rate_terms: PackageRateTermsTable;
  components: ComponentsTable;
  component_versions: ComponentVersionsTable;
  component_version_currencies: ComponentVersionCurrenciesTable;
  component_brackets: ComponentBracketsTable;
}
