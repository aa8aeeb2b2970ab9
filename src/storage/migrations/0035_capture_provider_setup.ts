import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // A capture session on a provider's hosted fields keeps the setup started at the provider when the customer
  // submitted (its reference and what the frame confirms it with, sealed), until the provider's word completes it.
  await db.schema.alterTable('capture_sessions').addColumn('provider_setup_sealed', 'text').execute();
}
