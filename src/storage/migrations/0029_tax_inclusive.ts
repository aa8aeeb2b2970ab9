import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // Tax-inclusive prices (docs/pricing.md, "Tax-inclusive prices"). The account's default for its prices: false,
  // so every existing account keeps pricing exclusive of tax.
  await db.schema
    .alterTable('accounts')
    .addColumn('is_tax_inclusive', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
  // A package version rate or component version currency may override the account's default; null follows it.
  await db.schema.alterTable('package_version_rates').addColumn('is_tax_inclusive', t.bool).execute();
  await db.schema.alterTable('component_version_currencies').addColumn('is_tax_inclusive', t.bool).execute();
  // A charge remembers whether its unit price includes the taxes, resolved when the line was made, so a later
  // change of the account or the catalogue never reprices it. Existing charges were all exclusive.
  // A billed subscription period remembers it too, so a credit for it gives back a share of what was charged.
  for (const table of ['invoice_charges', 'recurring_invoice_charges', 'subscription_periods']) {
    await db.schema
      .alterTable(table)
      .addColumn('is_tax_inclusive', t.bool, (c) => c.notNull().defaultTo(false))
      .execute();
  }
}
