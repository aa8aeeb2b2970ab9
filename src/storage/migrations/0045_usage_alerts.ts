import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // Whether a customer is e-mailed when one of its subscription's usage alerts fires (docs/usage.md, "Alerts").
  await db.schema
    .alterTable('accounts')
    .addColumn('usage_alert_emails', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();

  // A threshold on a subscription's usage so far in its period (docs/usage.md, "Alerts"): a metric's quantity
  // (a decimal of at most 4 places, as the usage module counts) or an amount in the subscription's currency's minor
  // units, per metric or, without one, over all its metered components.
  await withId(db.schema.createTable('usage_alerts'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    // The subscription's customer, kept here so that the evaluator finds the alerts of the customers whose events
    // arrived without reading subscriptions.
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // quantity | amount
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('metric_id', 'bigint', (c) => c.references('billable_metrics.id'))
    // A grouped metric's group; null: every group.
    .addColumn('usage_group', 'text')
    // Exactly one, by kind.
    .addColumn('threshold_quantity', t.decimal)
    .addColumn('threshold_minor', 'bigint')
    // True until an evaluation has read the alert as it now is: a new or edited alert is checked at the next one.
    .addColumn('needs_check', t.bool, (c) => c.notNull().defaultTo(true))
    // Counts the alert's edits: an evaluation clears needs_check only if the alert is still the version it read
    // (an edit's updated_at may equal the one read, on a test account's frozen clock).
    .addColumn('check_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addColumn('deleted_at', t.instant)
    .execute();
  await db.schema
    .createIndex('usage_alerts_customer')
    .on('usage_alerts')
    .columns(['account_id', 'customer_id'])
    .execute();
  await db.schema
    .createIndex('usage_alerts_subscription')
    .on('usage_alerts')
    .columns(['subscription_id'])
    .execute();

  // An alert fired once in a period: the unique key makes "once" the insert's decision, whoever evaluates.
  await withId(db.schema.createTable('usage_alert_firings'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('alert_id', 'bigint', (c) => c.notNull().references('usage_alerts.id').onDelete('cascade'))
    .addColumn('period_start', t.date, (c) => c.notNull())
    .addColumn('period_end', t.date, (c) => c.notNull())
    // What was compared, as the alert then was: the threshold and the value seen (by kind, as in usage_alerts).
    .addColumn('threshold_quantity', t.decimal)
    .addColumn('threshold_minor', 'bigint')
    .addColumn('value_quantity', t.decimal)
    .addColumn('value_minor', 'bigint')
    .addColumn('fired_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('usage_alert_firings_once', ['alert_id', 'period_start'])
    .execute();
}
