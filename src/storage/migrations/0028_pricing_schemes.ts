import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A bracket's flat fee (docs/pricing.md, "Usage schemes"); null = none, so existing brackets price as before.
  await db.schema.alterTable('component_brackets').addColumn('flat_price', t.decimal).execute();
  // The package scheme's blocks, on the version's price in a currency; null under the bracket schemes.
  await db.schema.alterTable('component_version_currencies').addColumn('package_size', t.decimal).execute();
  await db.schema.alterTable('component_version_currencies').addColumn('package_price', t.decimal).execute();
  await db.schema.alterTable('component_version_currencies').addColumn('free_units', t.decimal).execute();
}
