import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // An endpoint's queue: its pending deliveries in order, without walking the delivered ones (an endpoint's whole
  // history) or every endpoint's pending ones. The worker leases from it and finds the endpoints with work in it.
  await db.schema
    .createIndex('webhook_deliveries_queue')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'status', 'id'])
    .execute();
  // Served nothing once the queue index came: every write of a delivery only paid for keeping it.
  await db.schema.dropIndex('webhook_deliveries_due').execute();
}
