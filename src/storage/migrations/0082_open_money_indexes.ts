import { sql } from 'kysely';
import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * A customer's Balance sums what is open on its invoices, payments, credit notes and adjustments (the ledger's
 * `customerBalanceFigure`): it read every row of the customer's history, for every read of the customer and every
 * invoice event, though a paid invoice or an allocated payment adds nothing. These partial indexes hold the rows
 * that are still open, with every column the sums read, and the sums carry the same predicates, written as literals
 * so that both planners can tell a statement's rows are the index's (PostgreSQL's generic plans and SQLite's
 * prepared statements cannot with bound values). What they leave out is zero: the figure is the same.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index invoices_open_balance on invoices
    (account_id, customer_id, currency_code, total_minor, paid_actual_minor, negative_adjs_minor, paid_pending_minor)
    where is_draft = false and is_cancelled = false
      and total_minor - paid_actual_minor - negative_adjs_minor - paid_pending_minor <> 0`.execute(db);
  await sql`create index payments_open on payments
    (account_id, customer_id, currency_code, amount_minor, allocated_minor)
    where state <> 'failed' and amount_minor <> allocated_minor`.execute(db);
  for (const table of ['credit_notes', 'adjustments']) {
    const direction = table === 'adjustments' ? ', direction' : '';
    await sql
      .raw(
        `create index ${table}_open on ${table}
          (account_id, customer_id, currency_code, amount_minor, allocated_minor${direction})
          where amount_minor <> allocated_minor`,
      )
      .execute(db);
  }
}
