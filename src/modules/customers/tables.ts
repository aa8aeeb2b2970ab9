import type { SqlBool, Instant, Id, Defaulted } from '../../storage/columnTypes.ts';

// The tables the customers module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

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

/** The customers module's tables, as Kysely's Database type holds them. */
export interface CustomersTables {
  customers: CustomersTable;
  custom_fields: CustomFieldsTable;
  customer_custom_values: CustomerCustomValuesTable;
  customer_contacts: CustomerContactsTable;
  customer_notes: CustomerNotesTable;
}
