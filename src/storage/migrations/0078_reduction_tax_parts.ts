import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * The rates a reduction's VAT was taken at (docs/tax.md, "How a crossing period is invoiced"): a cut's credit of
 * an invoice at two rates credits its days at their own rates, so it states, per set of the invoice's taxes it
 * reduces (their positions), the amount and each tax's VAT, as JSON
 * (`[{"positions":[1],"amountMinor":5711,"taxesMinor":[766]}]`). Null: a share of the whole invoice, which every
 * reduction stored before this was.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoice_reductions').addColumn('tax_parts', 'text').execute();
}
