import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // An invoice without a CollectionMethod of its own is collected as its customer's payment settings say, decided
  // when each attempt is made (docs/gateways.md, "From the customer's settings to the money"). When those
  // settings cannot collect it, the reason reported to the customer is kept, so that it is told once.
  await db.schema.alterTable('invoices').addColumn('collection_problem', 'text').execute();
  // A subscription may name its own collection, copied to the invoices it makes; null follows the customer.
  await db.schema.alterTable('subscriptions').addColumn('collection_method', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('gateway_id', 'bigint').execute();
  await db.schema.alterTable('subscriptions').addColumn('customer_payment_method_id', 'bigint').execute();
}
