import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The day of the month on which subscriptions renew (docs/pricing.md, "Bill-cycle day"): 1 to 31, null for none.
  // The account's is the default of its customers; a customer's, the default of its new subscriptions; a
  // subscription's is the day its cycle is anchored on, kept so that days 29 to 31 return after a short month.
  for (const table of ['accounts', 'customers', 'subscriptions']) {
    await db.schema.alterTable(table).addColumn('bill_cycle_day', 'integer').execute();
  }
}
