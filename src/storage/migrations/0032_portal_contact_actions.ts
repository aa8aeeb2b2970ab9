import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // What a signed-in contact did that is limited per contact (docs/portal.md, "Sign-in, sessions and passwords"):
  // every check of its current password, right or wrong, per contact and per session in a window, and e-mail
  // changes per contact in a day. In the database, so that processes sharing it share the count; rows older than
  // the longest window are pruned. session_id has no foreign key: a session is deleted when it ends, and its checks
  // still count against its contact.
  await withId(db.schema.createTable('portal_contact_actions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('contact_id', 'bigint', (c) => c.notNull())
    .addColumn('session_id', 'bigint')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('acted_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('portal_contact_actions_contact')
    .on('portal_contact_actions')
    .columns(['account_id', 'contact_id', 'action', 'acted_at'])
    .execute();
}
