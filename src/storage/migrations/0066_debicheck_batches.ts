import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // An automatic batch collects either DebiCheck mandates or ordinary debit orders, never both: Netcash takes
  // DebiCheck collections in a file of their own (docs/gateways/netcash.md, "DebiCheck"), so bundling keeps them
  // apart. Batches made before this migration were bundled as ordinary debit orders.
  await db.schema
    .alterTable('batches')
    .addColumn('is_debicheck', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
}
