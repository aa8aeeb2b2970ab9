import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The least and the most prepaid credit a customer may buy at once in the portal, per currency (docs/portal.md,
  // "Prepaid credit"): JSON, [{ currencyCode, minMinor, maxMinor }]; a currency not listed keeps 1 to 10,000 units.
  await db.schema.alterTable('accounts').addColumn('portal_top_up_limits', 'text').execute();
}
