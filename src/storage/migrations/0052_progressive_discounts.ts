import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // What a progressive invoice's coupons took off each usage line (docs/usage.md, "Coupons"): the period's final
  // invoice deducts what was charged, the usage less this. Invoices made before it had no discount.
  await db.schema
    .alterTable('subscription_progressive_usage')
    .addColumn('discount_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
