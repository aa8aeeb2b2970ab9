import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // Features (docs/usage.md, "Entitlements"): what a package gives, on/off, a limit per billing period on a
  // metric's usage, or a configuration value.
  await withId(db.schema.createTable('features'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('descrip', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    // Only a limit feature names a metric: the one whose usage it limits.
    .addColumn('metric_id', 'bigint', (c) => c.references('billable_metrics.id'))
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('features_code', ['account_id', 'code'])
    .execute();
  // A feature's value given by a package (all its versions) or set on one subscription (an override): exactly one
  // of package_id and subscription_id. NOTE: a unique constraint lets rows with a NULL through on both databases,
  // so each pair below is unique where its owner is set.
  await withId(db.schema.createTable('feature_values'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('feature_id', 'bigint', (c) => c.notNull().references('features.id'))
    .addColumn('package_id', 'bigint', (c) => c.references('packages.id').onDelete('cascade'))
    .addColumn('subscription_id', 'bigint', (c) => c.references('subscriptions.id').onDelete('cascade'))
    .addColumn('enabled', t.bool, (c) => c.notNull())
    // A limit feature's quantity per billing period; NULL: unlimited.
    .addColumn('limit_quantity', t.decimal)
    .addColumn('config_value', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('feature_values_package', ['package_id', 'feature_id'])
    .addUniqueConstraint('feature_values_subscription', ['subscription_id', 'feature_id'])
    .addCheckConstraint('feature_values_one_owner', sql`(package_id is null) <> (subscription_id is null)`)
    .execute();
  // The answer of each accepted check-and-record, by its transaction_id: a retry answers it again without a new
  // check (docs/usage.md, "Entitlements"). Refused ones record nothing.
  await db.schema
    .createTable('entitlement_consumptions')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('feature_id', 'bigint', (c) => c.notNull().references('features.id').onDelete('cascade'))
    .addColumn('subscription_id', 'bigint', (c) => c.notNull())
    .addColumn('quantity', t.decimal, (c) => c.notNull())
    .addColumn('limit_quantity', t.decimal)
    .addColumn('used_after', t.decimal, (c) => c.notNull())
    .addColumn('period_start', t.date, (c) => c.notNull())
    .addColumn('period_end', t.date, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addPrimaryKeyConstraint('entitlement_consumptions_pk', ['account_id', 'transaction_id'])
    .execute();
}
