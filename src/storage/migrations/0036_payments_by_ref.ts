import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // A provider's webhook names a charge by its id, which a payment keeps as its Ref: found without reading all of
  // the account's payments (docs/gateways.md, "Late events and webhooks").
  await db.schema.createIndex('payments_account_ref').on('payments').columns(['account_id', 'ref']).execute();
}
