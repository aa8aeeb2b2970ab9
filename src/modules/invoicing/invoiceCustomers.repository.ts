import { expressionBuilder, sql } from 'kysely';
import type { CustomerOfRow, CustomerPick } from '../customers/index.ts';
import type { Database } from '../../storage/schema.ts';

// Queries of invoices that the customers module's statements take in (docs/architecture.md, "Module order"): a
// figure correlated with a customer's row, and the customers of some invoices.

/**
 * The Balance of the customer's issued, not cancelled invoices in its currency, summed (null when it has none): a
 * scalar subquery correlated with the customer's row. Each invoice's Balance is modules/invoicing/invoiceMath.ts's
 * invoiceBalances: Total − PaidActual − NegativeAdjs − PaidPending. Invoices in another currency are left out:
 * they cannot be added without a rate. Only invoices whose Balance is not zero are read, through the partial index
 * `invoices_open_balance` (migration 0082), whose predicate this repeats word for word: the others add nothing.
 * NOTE: PostgreSQL's sum(bigint) is numeric (read as text); SQLite's is an integer.
 */
export function issuedInvoicesBalanceOf(customer: CustomerOfRow) {
  return expressionBuilder<Database, never>()
    .selectFrom('invoices')
    .select(
      sql<
        number | string | null
      >`sum(total_minor - paid_actual_minor - negative_adjs_minor - paid_pending_minor)`.as('balance'),
    )
    .where('account_id', '=', customer.accountId)
    .where('customer_id', '=', customer.id)
    .where('currency_code', '=', customer.currencyCode)
    .where(sql<boolean>`is_draft = false`)
    .where(sql<boolean>`is_cancelled = false`)
    .where(sql<boolean>`total_minor - paid_actual_minor - negative_adjs_minor - paid_pending_minor <> 0`);
}

/** The customers of these invoices, as a query of their ids: the customers module reads them by it (CustomerPick). */
export const customersOfInvoices: CustomerPick = (accountId, invoiceIds) =>
  expressionBuilder<Database, never>()
    .selectFrom('invoices')
    .select('customer_id')
    .where('account_id', '=', accountId)
    .where('id', 'in', invoiceIds)
    .$asScalar();
