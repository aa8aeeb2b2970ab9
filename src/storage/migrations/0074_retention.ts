import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/** Cancel with a way to stay (docs/design/subscription-lifecycle.md, "Cancel with a way to stay"). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // Coupons the account may offer a customer who cancels (IsRetention).
  await db.schema
    .alterTable('coupons')
    .addColumn('is_retention', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
  // Why a subscription was cancelled, when the customer said (the portal's cancel reasons).
  await db.schema.alterTable('subscriptions').addColumn('cancel_reason', 'text').execute();

  // The account's rules: the cancel reasons the portal offers and each reason's offers, in order, as JSON.
  await db.schema
    .createTable('retention_rules')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .execute();

  // What happened in a cancel: an offer shown, taken or declined, and the cancellation itself, with the reason.
  await withId(db.schema.createTable('retention_records'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    // shown | taken | declined | cancelled
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    // coupon | package | pause; null for a cancellation without an offer
    .addColumn('offer_kind', 'text')
    // The offer as the rules named it (JSON), so that a later change of the rules keeps what was shown.
    .addColumn('offer', 'text')
    // The account's calendar day it happened on: the report's months.
    .addColumn('made_on', t.date, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('retention_records_day')
    .on('retention_records')
    .columns(['account_id', 'made_on'])
    .execute();
  await db.schema
    .createIndex('retention_records_subscription')
    .on('retention_records')
    .columns(['subscription_id'])
    .execute();
}
