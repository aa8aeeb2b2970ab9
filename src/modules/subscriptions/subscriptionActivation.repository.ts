import type { ExpressionBuilder } from 'kysely';
import type { PlainDate } from '../../core/calendar.ts';
import type { Db } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';

/**
 * The queries of subscriptions that start when paid (subscriptionActivation.service.ts). A subscription is waiting
 * for its first invoice's payment while it has an `incomplete_until` and neither an `activated_on` nor an
 * `incomplete_expired_on` (subscriptionActivation.ts).
 */

/**
 * For the bill run's due subscriptions: none created with ActivateOnPayment that is still incomplete once its
 * first invoice is made (period_count above 0), nor one that expired unpaid. A first invoice that failed to be
 * made at creation is still made by the bill run.
 */
export function notWaitingForPayment(eb: ExpressionBuilder<Database, 'subscriptions'>) {
  return eb.or([
    eb('subscriptions.incomplete_until', 'is', null),
    eb('subscriptions.activated_on', 'is not', null),
    eb.and([eb('subscriptions.incomplete_expired_on', 'is', null), eb('subscriptions.period_count', '=', 0)]),
  ]);
}

/**
 * For the customer's live subscriptions (entitlements, the portal's upcoming invoices, a collection that ran out
 * cancelling what it bills): none still waiting for its first payment, nor one that expired waiting.
 */
export function paidOrNotWaiting(eb: ExpressionBuilder<Database, 'subscriptions'>) {
  return eb.or([
    eb('subscriptions.incomplete_until', 'is', null),
    eb('subscriptions.activated_on', 'is not', null),
  ]);
}

function waiting(db: Db, accountId: number) {
  return db
    .selectFrom('subscriptions')
    .where('subscriptions.account_id', '=', accountId)
    .where('subscriptions.incomplete_until', 'is not', null)
    .where('subscriptions.activated_on', 'is', null)
    .where('subscriptions.incomplete_expired_on', 'is', null);
}

/** The incomplete subscriptions whose billed periods are on one of the invoices. */
export async function listWaitingOnInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<number[]> {
  if (invoiceIds.length === 0) return [];
  const rows = await waiting(db, accountId)
    .where('subscriptions.id', 'in', (eb) =>
      eb
        .selectFrom('subscription_periods')
        .select('subscription_periods.subscription_id')
        .where('subscription_periods.account_id', '=', accountId)
        .where('subscription_periods.invoice_id', 'in', invoiceIds),
    )
    .select('subscriptions.id')
    .orderBy('subscriptions.id')
    .execute();
  return rows.map((row) => row.id);
}

/** The incomplete subscriptions whose `incomplete_until` came by `on`, a page at a time in id order. */
export async function listWaitingUntil(
  db: Db,
  accountId: number,
  on: PlainDate,
  page: { afterId: number; limit: number },
): Promise<number[]> {
  const rows = await waiting(db, accountId)
    .where('subscriptions.incomplete_until', '<=', on)
    .where('subscriptions.id', '>', page.afterId)
    .select('subscriptions.id')
    .orderBy('subscriptions.id')
    .limit(page.limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The invoices the subscription's billed periods are on. */
export async function listInvoiceIdsOfPeriods(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('subscription_periods')
    .select('invoice_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('invoice_id', 'is not', null)
    .orderBy('invoice_id')
    .execute();
  return rows.map((row) => row.invoice_id!);
}
