import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A subscription's progressive billing threshold (docs/usage.md, "Progressive billing"): one row while it is on,
  // in minor units of the subscription's currency. A table of its own keeps the bill run's reads of subscriptions
  // as they were.
  await withId(db.schema.createTable('subscription_progressive_thresholds'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().unique().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('threshold_minor', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscription_progressive_thresholds_account')
    .on('subscription_progressive_thresholds')
    .columns(['account_id'])
    .execute();

  // What a progressive invoice billed of one metered component and group of a usage period: the quantity read
  // then (the period's so far) and the amount this invoice added. The period's final invoice deducts their sum.
  await withId(db.schema.createTable('subscription_progressive_usage'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('component_id', 'bigint', (c) => c.notNull())
    // '' when the metric has no GroupBy.
    .addColumn('group_value', 'text', (c) => c.notNull())
    .addColumn('period_start', t.date, (c) => c.notNull())
    .addColumn('period_end', t.date, (c) => c.notNull())
    .addColumn('quantity', t.decimal, (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.notNull().references('invoices.id'))
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscription_progressive_usage_period')
    .on('subscription_progressive_usage')
    .columns(['account_id', 'subscription_id', 'period_start'])
    .execute();
}
