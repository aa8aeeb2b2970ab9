import type { ColumnType } from 'kysely';
import type { SqlBool, Instant, Id, Defaulted, Decimal } from './columnTypes.ts';
import type {
  AuditLogTable,
  EventsEmittedOnceTable,
  EventsTable,
  ResourceVersionsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from './schema.events.ts';
import type { CaptureAddressFailuresTable, CaptureSessionsTable } from './schema.widgets.ts';
import type {
  PortalContactActionsTable,
  PortalFormPostsTable,
  PortalSessionsTable,
  PortalSignInFailuresTable,
  PortalTokensTable,
} from './schema.portal.ts';
import type {
  BatchesTable,
  BatchLinesTable,
  CollectionAttemptsTable,
  RefundAttemptsTable,
  RefundAttemptInvoicesTable,
  TestGatewayBatchesTable,
  GatewayCallsTable,
  TestGatewayChargesTable,
  TestGatewayVaultTable,
} from './schema.collections.ts';
import type {
  InvoicesTable,
  InvoiceChargesTable,
  InvoiceTaxesTable,
  SubscriptionsTable,
  SubscriptionComponentsTable,
  SubscriptionUsageTable,
  SubscriptionPeriodsTable,
  SubscriptionCreditsTable,
  RecurringInvoicesTable,
  RecurringInvoiceChargesTable,
  RecurringInvoiceTaxesTable,
  RecurringInvoicePeriodsTable,
  PaymentMethodsTable,
  PaymentsTable,
  CreditNotesTable,
  AdjustmentsTable,
  AllocationsTable,
} from './schema.billing.ts';
import type { EmandatesTable } from './schema.mandates.ts';

/** The table types of every module, and the Database Kysely is typed with. */
export type * from './columnTypes.ts';
export type * from './schema.billing.ts';
export type * from './schema.collections.ts';
export type * from './schema.widgets.ts';
export type * from './schema.portal.ts';
export type * from './schema.mandates.ts';

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
  /** JSON array of days after the first failure; null: the default schedule. */
  dunning_retry_days: string | null;
  dunning_max_attempts: number | null;
  dunning_suspend_customer: ColumnType<boolean | number, boolean | undefined, boolean>;
  dunning_cancel_subscriptions: ColumnType<boolean | number, boolean | undefined, boolean>;
  last_invoice_num: Defaulted<number>;
  /** The last number of the account's credit note sequence (0017). */
  last_credit_num: Defaulted<number>;
  /** Seller details printed on invoices (0005); null when not given. */
  seller_legal_name: string | null;
  seller_address1: string | null;
  seller_address2: string | null;
  seller_city: string | null;
  seller_postal_code: string | null;
  /** ISO 3166-1 alpha-2. */
  seller_country_code: string | null;
  seller_tax_number: string | null;
  seller_company_number: string | null;
  seller_email: string | null;
  seller_phone: string | null;
  /** Free text (bank details) printed under the totals. */
  payment_instructions: string | null;
  /** How often automatic statements go out: monthly, quarterly or yearly (0024). */
  statement_period: Defaulted<string>;
  /** The customer portal's address under /portal/ (0025); null until set. */
  portal_slug: string | null;
  /** Whether portal customers may cancel a subscription at the end of its period (0026). */
  portal_allow_cancel: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** The packages portal customers may switch to: a JSON array of package ids, '[]' for none (0026). */
  portal_switch_package_ids: Defaulted<string>;
  /** Bumped whenever portal_slug changes: the portal's sessions and tokens of an earlier slug end (0027). */
  portal_epoch: Defaulted<number>;
  /** Whether the account's prices include tax, unless a rate or currency says otherwise (0029). */
  is_tax_inclusive: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** The default bill-cycle day (1–31) of the account's customers (0030); null for none. */
  bill_cycle_day: number | null;
  /** Moved on by every write to the account's packages and components, in its transaction (0031). */
  catalogue_revision: Defaulted<number>;
}

/** An account's invoice logo, PNG or JPEG, kept apart from the account row every request reads. */
export interface AccountLogosTable {
  account_id: number;
  content_type: string;
  image: Buffer;
  updated_at: Instant;
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
  /** The process holding the key while its response is not recorded (0007); see idempotencyLease.ts. */
  lease: string | null;
  /** The operation records its response inside its own transaction (0007): a dead lease committed nothing. */
  records_in_transaction: ColumnType<boolean | number, boolean | undefined, boolean>;
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
  /** The day (1–31) its new monthly subscriptions renew on (0030); null: the account's. */
  bill_cycle_day: number | null;
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
  /** The username folded for case-insensitive sign-in (usernameKey, contactCredentials.service.ts; migration 0027). */
  username_key: string | null;
  password_hash: string | null;
  is_active: SqlBool;
  /** Bumped when the password or e-mail changes or the contact is deactivated: the portal's sessions and tokens
   * made under an older version no longer work (migration 0027). */
  login_version: Defaulted<number>;
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
  /** An HTML alternative of the body, sealed the same way (0024); null: plain text only. */
  html_sealed: string | null;
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

export interface Database {
  accounts: AccountsTable;
  account_logos: AccountLogosTable;
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
  events: EventsTable;
  resource_versions: ResourceVersionsTable;
  events_emitted_once: EventsEmittedOnceTable;
  audit_log: AuditLogTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  gateway_calls: GatewayCallsTable;
  test_gateway_vault: TestGatewayVaultTable;
  test_gateway_charges: TestGatewayChargesTable;
  collection_attempts: CollectionAttemptsTable;
  batches: BatchesTable;
  batch_lines: BatchLinesTable;
  test_gateway_batches: TestGatewayBatchesTable;
  refund_attempts: RefundAttemptsTable;
  refund_attempt_invoices: RefundAttemptInvoicesTable;
  capture_sessions: CaptureSessionsTable;
  capture_address_failures: CaptureAddressFailuresTable;
  emandates: EmandatesTable;
  portal_sessions: PortalSessionsTable;
  portal_tokens: PortalTokensTable;
  portal_sign_in_failures: PortalSignInFailuresTable;
  portal_form_posts: PortalFormPostsTable;
  portal_contact_actions: PortalContactActionsTable;
}
