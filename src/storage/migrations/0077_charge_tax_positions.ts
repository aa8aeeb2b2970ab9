import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * The taxes of an invoice that apply to a line (docs/tax.md, "Supplies that span a change"): the positions of the
 * invoice's taxes in their order, comma-separated ("0", "1,2"), or null for all of them, which every line stored
 * before this was. A period of service crossing a change of rate is billed as one line per part, each taxed at the
 * rates of its part, so an invoice may hold one tax at two rates.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoice_charges').addColumn('tax_positions', 'text').execute();
}
