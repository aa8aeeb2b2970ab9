import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // An HTML alternative to a message's text (the portal's password reset, docs/portal.md), sealed as the text is;
  // null: text only.
  await db.schema.alterTable('mail_outbox').addColumn('html_sealed', 'text').execute();
}
