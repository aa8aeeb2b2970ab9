import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  await withId(db.schema.createTable('accounts'), t)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();

  // The currencies an account has enabled; whatever is priced or billed in a currency refers to this row, so a
  // currency cannot be removed while anything uses it, also under concurrent requests.
  await db.schema
    .createTable('account_currencies')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addPrimaryKeyConstraint('account_currencies_pk', ['account_id', 'currency_code'])
    .execute();

  await withId(db.schema.createTable('api_keys'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('revoked_at', t.instant)
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_type', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();

  await withId(db.schema.createTable('customers'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('reference', 'text')
    .addColumn('is_company', t.bool, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text')
    .addColumn('registration_number', 'text')
    .addColumn('vat_no', 'text')
    .addColumn('company', 'text')
    .addColumn('email', 'text')
    .addColumn('email_cc', 'text')
    .addColumn('cell', 'text')
    .addColumn('tel', 'text')
    .addColumn('fax', 'text')
    .addColumn('address1', 'text')
    .addColumn('address2', 'text')
    .addColumn('city', 'text')
    .addColumn('state', 'text')
    .addColumn('country', 'text')
    .addColumn('zip_code', 'text')
    .addColumn('country_state', 'text')
    .addColumn('country_id', 'bigint')
    .addColumn('country_state_id', 'bigint')
    .addColumn('primary_gateway_id', 'bigint')
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('is_suspended', t.bool, (c) => c.notNull())
    .addColumn('suspended_at', t.instant)
    .addColumn('is_active', t.bool, (c) => c.notNull())
    .addColumn('is_waive_taxes', t.bool, (c) => c.notNull())
    .addColumn('payment_method', 'text')
    .addColumn('auto_send_invoice', t.bool, (c) => c.notNull())
    .addColumn('auto_send_statement', t.bool, (c) => c.notNull())
    .addColumn('statement_date', t.instant)
    .addColumn('statement_last_sent_at', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addForeignKeyConstraint(
      'customers_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .execute();
  // NULL references are distinct on both dialects, so only set references must be unique.
  await db.schema
    .createIndex('customers_reference_unique')
    .on('customers')
    .columns(['account_id', 'reference'])
    .unique()
    .execute();
  await db.schema.createIndex('customers_account').on('customers').columns(['account_id', 'id']).execute();

  await withId(db.schema.createTable('custom_fields'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('field_key', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('custom_fields_key_unique', ['account_id', 'field_key'])
    .execute();

  await db.schema
    .createTable('customer_custom_values')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('custom_field_id', 'bigint', (c) =>
      c.notNull().references('custom_fields.id').onDelete('cascade'),
    )
    .addColumn('value', 'text')
    .addPrimaryKeyConstraint('customer_custom_values_pk', ['customer_id', 'custom_field_id'])
    .execute();

  await withId(db.schema.createTable('customer_contacts'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('cell', 'text')
    .addColumn('username', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('is_active', t.bool, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customer_contacts_username_unique')
    .on('customer_contacts')
    .columns(['account_id', 'username'])
    .unique()
    .execute();
  await db.schema
    .createIndex('customer_contacts_account')
    .on('customer_contacts')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('customer_contacts_customer')
    .on('customer_contacts')
    .columns(['customer_id', 'id'])
    .execute();

  await withId(db.schema.createTable('customer_notes'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('note_type', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customer_notes_account')
    .on('customer_notes')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('customer_notes_customer')
    .on('customer_notes')
    .columns(['customer_id', 'id'])
    .execute();

  await withId(db.schema.createTable('mail_outbox'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_sealed', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', t.instant, (c) => c.notNull())
    .addColumn('lease_until', t.instant)
    .addColumn('last_error', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('delivered_at', t.instant)
    .execute();
  await db.schema
    .createIndex('mail_outbox_due')
    .on('mail_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();
}
