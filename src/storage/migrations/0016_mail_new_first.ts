import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The mail worker leases a message that has not failed yet in the order it was queued, whatever its
  // next_attempt_at (docs/architecture.md, "E-mail"): pending rows by id, without reading the sent ones.
  await db.schema.createIndex('mail_outbox_pending').on('mail_outbox').columns(['status', 'id']).execute();
}
