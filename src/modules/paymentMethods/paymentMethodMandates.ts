import type { Db } from '../../storage/database.ts';

/**
 * What other modules may read of the payment methods table inside their own statements (docs/architecture.md,
 * "Tables and their owners"): each payment method of the account with the mandate reference it collects under, as
 * a subquery aliased `payment_method_mandates`. A SEPA line's sequence type is found in one statement.
 */
export function paymentMethodMandates(db: Db, accountId: number) {
  return db
    .selectFrom('payment_methods')
    .select(['id as payment_method_id', 'mandate_reference'])
    .where('account_id', '=', accountId)
    .as('payment_method_mandates');
}
