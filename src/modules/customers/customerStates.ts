import type { Db } from '../../storage/database.ts';

/**
 * What other modules may read of the customers table inside their own statements (docs/architecture.md, "Tables
 * and their owners"): the account's customers as a subquery, aliased `customer_states`, with only these columns.
 * A page of due subscriptions or invoices filtered on its customers' state stays one statement (both databases
 * flatten a plain subquery into the join), and the customers module alone names its table.
 */
export function customerStates(db: Db, accountId: number) {
  return db
    .selectFrom('customers')
    .select([
      'id as customer_id',
      'name as customer_name',
      'last_name as customer_last_name',
      'is_active as customer_is_active',
      'is_suspended as customer_is_suspended',
      'suspended_at as customer_suspended_at',
      'payment_method as customer_payment_method',
    ])
    .where('account_id', '=', accountId)
    .as('customer_states');
}
