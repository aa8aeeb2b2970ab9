import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // Whether customers may buy prepaid credit in the portal (docs/portal.md, "Prepaid credit"): on unless the account
  // turns it off.
  await db.schema
    .alterTable('accounts')
    .addColumn('portal_allow_top_ups', t.bool, (c) => c.notNull().defaultTo(true))
    .execute();
  // The top-ups the portal's credit form made, by the form's key (a digest of the session's form token, the wallet,
  // the amount and the page's own token): the same form sent twice finds its row and makes no second invoice. The
  // unique index is the backstop for two sends that race past the look-up.
  await withId(db.schema.createTable('portal_top_ups'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('contact_id', 'bigint', (c) => c.notNull())
    .addColumn('form_key', 'text', (c) => c.notNull())
    .addColumn('wallet_id', 'bigint', (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('portal_top_ups_form_key')
    .on('portal_top_ups')
    .columns(['account_id', 'form_key'])
    .unique()
    .execute();
}
