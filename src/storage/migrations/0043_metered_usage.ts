import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // The metered usage a subscription was billed (docs/usage.md, "Billing usage"): a metric's quantity per group
  // for one usage period, written with the invoice that bills it. Correction 0 is the period's first billing;
  // each later one bills what late events added (docs/design/usage.md, "Late events and grace"). The unique key
  // makes a second billing of the same period, group and correction impossible, whichever process tries it.
  await withId(db.schema.createTable('subscription_metered_usage'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('component_id', 'bigint', (c) => c.notNull())
    .addColumn('metric_id', 'bigint', (c) => c.notNull())
    // '' when the metric has no GroupBy.
    .addColumn('group_value', 'text', (c) => c.notNull())
    .addColumn('period_start', t.date, (c) => c.notNull())
    .addColumn('period_end', t.date, (c) => c.notNull())
    .addColumn('correction_no', 'integer', (c) => c.notNull())
    // What this row bills: the period's quantity (correction 0) or what late events added to it.
    .addColumn('quantity', t.decimal, (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.notNull().references('invoices.id'))
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('subscription_metered_usage_unique', [
      'subscription_id',
      'component_id',
      'period_start',
      'group_value',
      'correction_no',
    ])
    .execute();
  // An invoice line of metered usage says what it counted (docs/usage.md, "Reading usage"); null on other lines.
  await db.schema.alterTable('invoice_charges').addColumn('metric_code', 'text').execute();
  await db.schema.alterTable('invoice_charges').addColumn('usage_group', 'text').execute();
  await db.schema.alterTable('invoice_charges').addColumn('usage_quantity', t.decimal).execute();
}
