import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // What the portal's sessions and tokens were made under (docs/spec-decisions.md, "Customer portal"): the lower
  // modules count their own changes, and the portal, which sits above them, compares on every use.
  // accounts.portal_epoch: bumped whenever PortalSlug changes (set, changed or cleared).
  await db.schema
    .alterTable('accounts')
    .addColumn('portal_epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // customer_contacts.login_version: bumped when the password or e-mail changes, or the contact is deactivated.
  await db.schema
    .alterTable('customer_contacts')
    .addColumn('login_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const table of ['portal_sessions', 'portal_tokens']) {
    await db.schema
      .alterTable(table)
      .addColumn('login_version', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable(table)
      .addColumn('portal_epoch', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }

  // The username folded for the portal's case-insensitive sign-in, computed by the service: SQLite's lower() folds
  // ASCII only, so "ZOË" would never find "Zoë" there, while PostgreSQL's would.
  await db.schema.alterTable('customer_contacts').addColumn('username_key', 'text').execute();
  const rows = await db
    .selectFrom('customer_contacts')
    .select(['id', 'username'])
    .where('username', 'is not', null)
    .execute();
  for (const row of rows as { id: number; username: string }[]) {
    await db
      .updateTable('customer_contacts')
      .set({ username_key: row.username.normalize('NFC').toLowerCase() })
      .where('id', '=', row.id)
      .execute();
  }
  await db.schema
    .createIndex('customer_contacts_username_key')
    .on('customer_contacts')
    .columns(['account_id', 'username_key'])
    .execute();

  // Sign-in and reset forms posted, per address and account (docs/design/portal.md, "Throttling": the coarse
  // request limit that comes first), counted in the database that the service's processes share.
  const t = columnTypes(db);
  await withId(db.schema.createTable('portal_form_posts'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('client_address', 'text', (c) => c.notNull())
    .addColumn('posted_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('portal_form_posts_address')
    .on('portal_form_posts')
    .columns(['account_id', 'client_address', 'posted_at'])
    .execute();
}
