import type { ColumnType } from 'kysely';
import type { Instant, Id, Defaulted } from '../../storage/columnTypes.ts';

// The tables the auth module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

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
  /** The name every e-mail of the account comes from, and its Reply-To (0058); null: the default, none. */
  sender_name: string | null;
  reply_to: string | null;
  /** How often automatic statements go out: monthly, quarterly or yearly (0024). */
  statement_period: Defaulted<string>;
  /** The customer portal's address under /portal/ (0025); null until set. */
  portal_slug: string | null;
  /** Whether portal customers may cancel a subscription at the end of its period (0026). */
  portal_allow_cancel: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** Whether portal customers may buy prepaid credit for their wallets (0051). */
  portal_allow_top_ups: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** Whether portal contacts may pause their subscriptions, for how long at most and how often (0075). */
  portal_pause: ColumnType<boolean | number, boolean | undefined, boolean>;
  max_pause_days: Defaulted<number>;
  max_pauses_per_year: Defaulted<number>;
  /** How prepaid credit sold from now on is taxed: when_sold or when_used (0055; docs/tax.md). */
  prepaid_credit_vat: Defaulted<string>;
  /** The VAT report's basis: invoice or payments (0055; docs/tax.md, "The VAT report"). */
  vat_basis: Defaulted<string>;
  /** What customers are told (0055; docs/tax.md, "What customers are told"). */
  send_credit_notes: ColumnType<boolean | number, boolean | undefined, boolean>;
  send_refund_notices: ColumnType<boolean | number, boolean | undefined, boolean>;
  send_low_balance_alerts: ColumnType<boolean | number, boolean | undefined, boolean>;
  send_cancellation_notices: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** 0072: pause confirmed, resuming soon, resumed. */
  send_pause_notices: ColumnType<boolean | number, boolean | undefined, boolean>;
  copy_notices_to_staff: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** Per currency, the least and the most credit bought at once in the portal: JSON, null for none (0054). */
  portal_top_up_limits: ColumnType<string | null, string | null | undefined, string | null>;
  /** The packages portal customers may switch to: a JSON array of package ids, '[]' for none (0026). */
  portal_switch_package_ids: Defaulted<string>;
  /** Bumped whenever portal_slug changes: the portal's sessions and tokens of an earlier slug end (0027). */
  portal_epoch: Defaulted<number>;
  /** Whether the account's prices include tax, unless a rate or currency says otherwise (0029). */
  is_tax_inclusive: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** The default bill-cycle day (1–31) of the account's customers (0030); null for none. */
  bill_cycle_day: number | null;
  /** The collection loop's settings (0037; docs/gateways.md, "The collection loop"). */
  send_payment_receipts: ColumnType<boolean | number, boolean | undefined, boolean>;
  send_payment_failed_emails: ColumnType<boolean | number, boolean | undefined, boolean>;
  send_invoice_reminders: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** JSON array of days relative to the due date; null: the default schedule. */
  invoice_reminder_days: string | null;
  apply_credit_first: ColumnType<boolean | number, boolean | undefined, boolean>;
  auto_submit_batches: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** A popup's charge for an invoice already paid: refund or credit (0060; docs/hosted-pages.md). */
  late_charges_on_paid_invoices: Defaulted<string>;
  staff_email: string | null;
  /** Below this an invoice past due is a small leftover told to the staff at once (0058); null: none is. */
  small_invoice_minor: ColumnType<number | string | null, number | null | undefined, number | null>;
  /** How many hours late a usage event may arrive (0042; docs/usage.md, "Grace and late events"). */
  usage_grace_hours: Defaulted<number>;
  /** Whether customers are e-mailed when a usage alert fires (0045; docs/usage.md, "Alerts"). */
  usage_alert_emails: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** The live account this test account was made live as (0059; docs/going-live.md); null until then. */
  live_account_id: ColumnType<number | null, number | null | undefined, number | null>;
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

/** The auth module's tables, as Kysely's Database type holds them. */
export interface AuthTables {
  accounts: AccountsTable;
  account_logos: AccountLogosTable;
  api_keys: ApiKeysTable;
}
