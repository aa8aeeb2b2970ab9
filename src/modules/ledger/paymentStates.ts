import type { Expression } from 'kysely';
import type { Db } from '../../storage/database.ts';

/**
 * What other modules may read of the payments table inside their own statements (docs/architecture.md, "Tables
 * and their owners"): the account's payments as a subquery, aliased `payment_states`, with only these columns. A
 * batch's lines and their totals stay one statement, and the ledger alone names its table.
 */
export function paymentStates(db: Db, accountId: number) {
  return db
    .selectFrom('payments')
    .select([
      'id as payment_id',
      'customer_id',
      'payment_method_id',
      'amount_minor',
      'currency_code',
      'state',
      'failure_code',
    ])
    .where('account_id', '=', accountId)
    .as('payment_states');
}

/**
 * A payment's amount, as a subquery of one row that another module's statement runs for each of its rows (a batch's
 * totals: batch.repository.ts). Found by its whole key, it is one look-up whatever plan PostgreSQL keeps for the
 * statement; a join may be planned for an average account (docs/benchmarks.md, "Plans for an average account").
 */
export function paymentAmount(db: Db, accountId: number, paymentId: Expression<number>) {
  return db
    .selectFrom('payments')
    .select('amount_minor')
    .where('id', '=', paymentId)
    .where('account_id', '=', accountId);
}
