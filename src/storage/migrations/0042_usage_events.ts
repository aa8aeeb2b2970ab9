import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // How late an event may arrive (docs/usage.md, "Grace and late events").
  await db.schema
    .alterTable('accounts')
    .addColumn('usage_grace_hours', 'integer', (c) => c.notNull().defaultTo(72))
    .execute();

  // Once per transaction_id, decided at insert (docs/design/usage.md, "Storage: summed fast, exact"). NOTE: a
  // PostgreSQL partitioned table cannot be unique on a column that is not its partition key, so the rule has a
  // table of its own; its id is the event's id.
  await withId(db.schema.createTable('usage_transactions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    // Where the event is: its partition (occurred_at) and its place in the customer's index.
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('occurred_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('usage_transactions_once', ['account_id', 'transaction_id'])
    .execute();

  // The events as sent, append-only; PostgreSQL: one partition per month of occurred_at, made on demand by the
  // insert (usagePartitions.ts).
  let events = db.schema
    .createTable('usage_events')
    .addColumn('id', 'bigint', (c) => c.notNull())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint')
    .addColumn('metric_id', 'bigint', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', t.instant, (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    // False: the metric's filters exclude it; kept, counted nowhere.
    .addColumn('counted', t.bool, (c) => c.notNull())
    // In ten-thousandths (eventReading.ts); the value unique_count counts; the group ('' for none).
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('unique_value', 'text', (c) => c.notNull())
    .addColumn('group_value', 'text', (c) => c.notNull())
    .addColumn('received_at', t.instant, (c) => c.notNull());
  if (t.isPostgres) events = events.modifyEnd(sql`partition by range (occurred_at)`);
  await events.execute();
  await db.schema
    .createIndex('usage_events_customer_time')
    .on('usage_events')
    .columns(['account_id', 'customer_id', 'occurred_at'])
    .execute();

  // One row per (account, customer, subscription or 0, metric, group, hour): what the hour's counted events add up
  // to, kept in the insert's transaction. NOTE: SQLite turns an integer sum that overflows 64 bits into a float;
  // the CHECKs make that a refused write instead (PostgreSQL's bigint refuses it by itself).
  await db.schema
    .createTable('usage_rollups')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) => c.notNull())
    .addColumn('metric_id', 'bigint', (c) => c.notNull())
    .addColumn('group_value', 'text', (c) => c.notNull())
    .addColumn('hour', t.instant, (c) => c.notNull())
    .addColumn('event_count', 'bigint', (c) => c.notNull())
    .addColumn('value_sum', 'bigint', (c) =>
      t.isPostgres ? c.notNull() : c.notNull().check(sql`typeof(value_sum) = 'integer'`),
    )
    .addColumn('value_max', 'bigint', (c) => c.notNull())
    .addColumn('latest_value', 'bigint', (c) => c.notNull())
    .addColumn('latest_at', t.instant, (c) => c.notNull())
    .addColumn('latest_id', 'bigint', (c) => c.notNull())
    // Σ value × whole seconds since the hour: weighted_sum is weighted by the second (docs/design/usage.md).
    .addColumn('weighted_seconds', 'bigint', (c) =>
      t.isPostgres ? c.notNull() : c.notNull().check(sql`typeof(weighted_seconds) = 'integer'`),
    )
    .addPrimaryKeyConstraint('usage_rollups_key', [
      'account_id',
      'customer_id',
      'subscription_id',
      'metric_id',
      'group_value',
      'hour',
    ])
    .execute();

  // The distinct values unique_count counts, per rollup key; COUNT(DISTINCT) over a period's hours at read.
  await db.schema
    .createTable('usage_unique_values')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) => c.notNull())
    .addColumn('metric_id', 'bigint', (c) => c.notNull())
    .addColumn('group_value', 'text', (c) => c.notNull())
    .addColumn('hour', t.instant, (c) => c.notNull())
    .addColumn('unique_value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_unique_values_key', [
      'account_id',
      'customer_id',
      'subscription_id',
      'metric_id',
      'group_value',
      'hour',
      'unique_value',
    ])
    .execute();
}
