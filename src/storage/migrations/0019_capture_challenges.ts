import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // A card whose sale needs the cardholder's authentication waits on the session in state `challenging`
  // (docs/design/hosted-pages.md, "3-D Secure in the frame"): the challenge's random id, which the frame must send
  // back. The card as a person sees it and the vault's token wait in the session's own columns.
  await db.schema.alterTable('capture_sessions').addColumn('challenge_id', 'text').execute();
}
