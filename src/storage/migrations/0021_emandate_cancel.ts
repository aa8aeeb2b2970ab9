import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // When a signed eMandate was cancelled (docs/spec-decisions.md, "Cancelling an eMandate"); null until then.
  await db.schema.alterTable('emandates').addColumn('cancelled_at', t.instant).execute();
}
