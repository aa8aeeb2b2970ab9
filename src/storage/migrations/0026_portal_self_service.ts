import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // What customers may change in the portal (docs/portal.md, "What customers may change"): cancelling a
  // subscription at the end of its period (on unless the account turns it off), and the packages they may switch
  // to, a JSON array of package ids ('[]': none, the default).
  await db.schema
    .alterTable('accounts')
    .addColumn('portal_allow_cancel', t.bool, (c) => c.notNull().defaultTo(true))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('portal_switch_package_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
