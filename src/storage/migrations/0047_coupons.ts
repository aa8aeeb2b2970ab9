import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A coupon of an account (docs/credits.md, "Coupons"): a percentage or a fixed amount in one currency, for one
  // billed period, N of them or for ever, with an optional last day to redeem it and a cap on redemptions.
  await withId(db.schema.createTable('coupons'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Upper case, unique per account: what a customer types.
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // percent | fixed
    .addColumn('discount_kind', 'text', (c) => c.notNull())
    // A percent coupon's percentage (0 < p ≤ 100, at most 2 decimals); null on a fixed one.
    .addColumn('percent_off', t.decimal)
    // A fixed coupon's amount in minor units of its currency; both null on a percent one.
    .addColumn('amount_off_minor', 'bigint')
    .addColumn('currency_code', 'text')
    // once | repeating | forever; duration_periods only with repeating.
    .addColumn('duration', 'text', (c) => c.notNull())
    .addColumn('duration_periods', 'integer')
    .addColumn('redeem_by', t.instant)
    .addColumn('max_redemptions', 'integer')
    // Counted by the redemption's own conditional update: one statement decides (docs/credits.md, "Coupons").
    .addColumn('redemption_count', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON arrays of ids; null: no restriction.
    .addColumn('package_ids', 'text')
    .addColumn('component_ids', 'text')
    .addColumn('portal_redeemable', t.bool, (c) => c.notNull().defaultTo(false))
    .addColumn('archived_at', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('coupons_code', ['account_id', 'code'])
    .execute();

  // A coupon redeemed on a customer (every subscription of theirs) or on one subscription.
  await withId(db.schema.createTable('coupon_redemptions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('coupon_id', 'bigint', (c) => c.notNull().references('coupons.id'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('subscription_id', 'bigint', (c) => c.references('subscriptions.id').onDelete('cascade'))
    // The day it was redeemed in the account's time zone: it discounts invoices dated on or after it.
    .addColumn('redeemed_on', t.date, (c) => c.notNull())
    // Billed periods it has discounted.
    .addColumn('periods_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ended_at', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('coupon_redemptions_customer')
    .on('coupon_redemptions')
    .columns(['account_id', 'customer_id'])
    .execute();
  await db.schema
    .createIndex('coupon_redemptions_coupon')
    .on('coupon_redemptions')
    .columns(['coupon_id'])
    .execute();
}
