import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  await withId(db.schema.createTable('tax_settings'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tax_settings_account')
    .on('tax_settings')
    .columns(['account_id', 'id'])
    .execute();
  // Names are unique per account ignoring case; the service checks first, this settles concurrent requests.
  await db.schema
    .createIndex('tax_settings_name_unique')
    .on('tax_settings')
    .unique()
    .expression(sql`account_id, lower(name)`)
    .execute();

  await withId(db.schema.createTable('tax_rules'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('tax_setting_id', 'bigint', (c) =>
      c.notNull().references('tax_settings.id').onDelete('cascade'),
    )
    .addColumn('perc', t.decimal, (c) => c.notNull())
    .addColumn('country_id', 'bigint')
    .addColumn('country_state_id', 'bigint')
    .addColumn('tax_number', 'text')
    .execute();
  await db.schema
    .createIndex('tax_rules_setting')
    .on('tax_rules')
    .columns(['tax_setting_id', 'id'])
    .execute();

  await withId(db.schema.createTable('package_groups'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('group_name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('package_groups_account')
    .on('package_groups')
    .columns(['account_id', 'id'])
    .execute();

  await withId(db.schema.createTable('packages'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('package_group_id', 'bigint', (c) => c.notNull().references('package_groups.id'))
    .addColumn('package_code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('descrip', 'text')
    .addColumn('is_active', t.bool, (c) => c.notNull())
    // VersionNo is never reused: the highest ever given, deleted versions included.
    .addColumn('last_version_no', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('packages_code_unique', ['account_id', 'package_code'])
    .execute();
  await db.schema.createIndex('packages_account').on('packages').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('packages_group').on('packages').column('package_group_id').execute();

  await withId(db.schema.createTable('package_versions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('package_id', 'bigint', (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull())
    .addColumn('version_name', 'text', (c) => c.notNull())
    .addColumn('is_default', t.bool, (c) => c.notNull())
    .addColumn('is_active', t.bool, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('package_versions_no_unique', ['package_id', 'version_no'])
    .execute();

  await withId(db.schema.createTable('package_version_rates'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('package_version_id', 'bigint', (c) =>
      c.notNull().references('package_versions.id').onDelete('cascade'),
    )
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('setup_fee', t.decimal, (c) => c.notNull())
    .addColumn('trial_fee', t.decimal, (c) => c.notNull())
    .addColumn('trial_period', 'integer', (c) => c.notNull())
    .addColumn('trial_period_type', 'text', (c) => c.notNull())
    .addUniqueConstraint('package_version_rates_currency_unique', ['package_version_id', 'currency_code'])
    .addForeignKeyConstraint(
      'package_version_rates_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .execute();

  await withId(db.schema.createTable('package_rate_terms'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('package_rate_id', 'bigint', (c) =>
      c.notNull().references('package_version_rates.id').onDelete('cascade'),
    )
    .addColumn('charge_price', t.decimal, (c) => c.notNull())
    .addColumn('charge_term', 'integer', (c) => c.notNull())
    .addColumn('charge_term_type', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('package_rate_terms_rate')
    .on('package_rate_terms')
    .columns(['package_rate_id', 'id'])
    .execute();

  await withId(db.schema.createTable('components'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('package_group_id', 'bigint', (c) => c.notNull().references('package_groups.id'))
    .addColumn('component_code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('descrip', 'text')
    .addColumn('is_active', t.bool, (c) => c.notNull())
    .addColumn('unit_name', 'text', (c) => c.notNull())
    .addColumn('term', 'integer', (c) => c.notNull())
    .addColumn('term_type', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('last_version_no', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('components_code_unique', ['account_id', 'component_code'])
    .execute();
  await db.schema.createIndex('components_account').on('components').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('components_group').on('components').column('package_group_id').execute();

  await withId(db.schema.createTable('component_versions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('component_id', 'bigint', (c) => c.notNull().references('components.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull())
    .addColumn('version_name', 'text', (c) => c.notNull())
    .addColumn('is_default', t.bool, (c) => c.notNull())
    .addColumn('is_active', t.bool, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('component_versions_no_unique', ['component_id', 'version_no'])
    .execute();

  await withId(db.schema.createTable('component_version_currencies'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('component_version_id', 'bigint', (c) =>
      c.notNull().references('component_versions.id').onDelete('cascade'),
    )
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addUniqueConstraint('component_version_currencies_unique', ['component_version_id', 'currency_code'])
    .addForeignKeyConstraint(
      'component_version_currencies_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .execute();

  await withId(db.schema.createTable('component_brackets'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('component_version_currency_id', 'bigint', (c) =>
      c.notNull().references('component_version_currencies.id').onDelete('cascade'),
    )
    .addColumn('price', t.decimal, (c) => c.notNull())
    .addColumn('qty_from', t.decimal, (c) => c.notNull())
    .addColumn('qty_till', t.decimal)
    .execute();
  await db.schema
    .createIndex('component_brackets_currency')
    .on('component_brackets')
    .columns(['component_version_currency_id', 'id'])
    .execute();
}
