import type { ColumnType, Generated } from 'kysely';

/** SQLite hands back 0/1, PostgreSQL true/false; mappers read either with Boolean(). */
export type SqlBool = ColumnType<boolean | number, boolean, boolean>;
/** An instant, read as an ISO 8601 string in UTC on both dialects. */
export type Instant = ColumnType<string, string, string>;
export type Id = Generated<number>;
/** A calendar date (billing dates), read as `YYYY-MM-DD` on both dialects. */
export type PlainDateColumn = ColumnType<string, string, string>;
/** A column the database fills with its default when an insert leaves it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export interface AccountsTable {
  id: Id;
  name: string;
  time_zone: string;
  currency_code: string;
  created_at: Instant;
  /** Test accounts bill on their own clock (test_clock_at), moved forward through the API. */
  is_test: ColumnType<boolean | number, boolean | undefined, boolean>;
  test_clock_at: Instant | null;
  /** Days from an invoice's date to its due date. */
  invoice_due_days: Defaulted<number>;
  invoice_notes: string | null;
  invoice_terms: string | null;
  last_invoice_num: Defaulted<number>;
}

export interface ApiKeysTable {
  id: Id;
  account_id: number;
  key_hash: string;
  key_prefix: string;
  created_at: Instant;
  revoked_at: Instant | null;
}

export interface IdempotencyKeysTable {
  account_id: number;
  idempotency_key: string;
  request_hash: string;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  created_at: Instant;
}

export interface CustomersTable {
  id: Id;
  account_id: number;
  reference: string | null;
  is_company: SqlBool;
  name: string;
  last_name: string | null;
  registration_number: string | null;
  vat_no: string | null;
  company: string | null;
  email: string | null;
  email_cc: string | null;
  cell: string | null;
  tel: string | null;
  fax: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  zip_code: string | null;
  country_state: string | null;
  country_id: number | null;
  country_state_id: number | null;
  primary_gateway_id: number | null;
  currency_code: string;
  is_suspended: SqlBool;
  suspended_at: Instant | null;
  is_active: SqlBool;
  is_waive_taxes: SqlBool;
  payment_method: string | null;
  auto_send_invoice: SqlBool;
  auto_send_statement: SqlBool;
  statement_date: Instant | null;
  statement_last_sent_at: Instant | null;
  created_at: Instant;
  updated_at: Instant;
}

export interface CustomFieldsTable {
  id: Id;
  account_id: number;
  field_key: string;
  created_at: Instant;
}

export interface CustomerCustomValuesTable {
  account_id: number;
  customer_id: number;
  custom_field_id: number;
  value: string | null;
}

export interface CustomerContactsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  name: string;
  last_name: string;
  email: string;
  cell: string | null;
  username: string | null;
  password_hash: string | null;
  is_active: SqlBool;
  created_at: Instant;
}

export interface CustomerNotesTable {
  id: Id;
  account_id: number;
  customer_id: number;
  note: string;
  note_type: string;
  created_at: Instant;
}

export interface MailOutboxTable {
  id: Id;
  account_id: number;
  recipient: string;
  subject: string;
  /** AES-256-GCM sealed text: messages can carry credentials. */
  body_sealed: string;
  status: 'pending' | 'sent' | 'skipped' | 'failed';
  attempts: number;
  next_attempt_at: Instant;
  lease_until: Instant | null;
  last_error: string | null;
  created_at: Instant;
  delivered_at: Instant | null;
  /** A copy recipient. */
  cc: string | null;
  /** An attachment rendered at delivery by the renderer registered for its kind, from its ref (an id). */
  attachment_kind: string | null;
  attachment_ref: string | null;
}

export interface AccountCurrenciesTable {
  account_id: number;
  currency_code: string;
  created_at: Instant;
}

/** An exact decimal: text on SQLite, numeric on PostgreSQL; read as a string on both. */
export type Decimal = ColumnType<string, string, string>;

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
}

export interface ComponentBracketsTable {
  id: Id;
  account_id: number;
  component_version_currency_id: number;
  price: Decimal;
  qty_from: Decimal;
  qty_till: Decimal | null;
}

export interface GatewaysTable {
  id: Id;
  account_id: number;
  gateway_token: string;
  gateway_name: string;
  friendly_name: string;
  gateway_type: string;
  is_active: SqlBool;
  is_test_mode: SqlBool;
  is_accept_cc: SqlBool;
  is_accept_bank_dd: SqlBool;
  is_enabled: SqlBool;
  is_primary: SqlBool;
  is_manual_recon: SqlBool;
  settings_sealed: string | null;
  created_at: Instant;
}

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
  unit_cost_ex: Decimal;
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
  unit_cost_ex: Decimal;
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
  emandate_token: string | null;
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

export interface Database {
  accounts: AccountsTable;
  account_currencies: AccountCurrenciesTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  customers: CustomersTable;
  custom_fields: CustomFieldsTable;
  customer_custom_values: CustomerCustomValuesTable;
  customer_contacts: CustomerContactsTable;
  customer_notes: CustomerNotesTable;
  mail_outbox: MailOutboxTable;
  tax_settings: TaxSettingsTable;
  tax_rules: TaxRulesTable;
  package_groups: PackageGroupsTable;
  packages: PackagesTable;
  package_versions: PackageVersionsTable;
  package_version_rates: PackageVersionRatesTable;
  package_rate_terms: PackageRateTermsTable;
  components: ComponentsTable;
  component_versions: ComponentVersionsTable;
  component_version_currencies: ComponentVersionCurrenciesTable;
  component_brackets: ComponentBracketsTable;
  gateways: GatewaysTable;
  invoices: InvoicesTable;
  invoice_charges: InvoiceChargesTable;
  invoice_taxes: InvoiceTaxesTable;
  subscriptions: SubscriptionsTable;
  subscription_components: SubscriptionComponentsTable;
  subscription_usage: SubscriptionUsageTable;
  subscription_periods: SubscriptionPeriodsTable;
  subscription_credits: SubscriptionCreditsTable;
  recurring_invoices: RecurringInvoicesTable;
  recurring_invoice_charges: RecurringInvoiceChargesTable;
  recurring_invoice_taxes: RecurringInvoiceTaxesTable;
  recurring_invoice_periods: RecurringInvoicePeriodsTable;
  payment_methods: PaymentMethodsTable;
  payments: PaymentsTable;
  credit_notes: CreditNotesTable;
  adjustments: AdjustmentsTable;
  allocations: AllocationsTable;
}
