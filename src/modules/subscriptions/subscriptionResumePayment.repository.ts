import type { ExpressionBuilder } from 'kysely';
import type { PlainDate } from '../../core/calendar.ts';
import type { Db } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';

/**
 * The queries of a resume that waits for its invoice's payment (subscriptionResumePayment.service.ts). A
 * subscription waits while it has a `resume_pay_by` and a `resume_date` but no `resume_paid_on`.
 */

/**
 * For the bill run's due subscriptions: none waiting for its resumption invoice's payment once that invoice is made
 * (its next renewal past the resume day): nothing else is billed until it is paid. The resumption invoice itself is
 * the bill run's to make on a dated resume day.
 */
export function notAwaitingResumption(eb: ExpressionBuilder<Database, 'subscriptions'>) {
  return eb.or([
    eb('subscriptions.resume_pay_by', 'is', null),
    eb('subscriptions.resume_paid_on', 'is not', null),
    eb('subscriptions.resume_date', 'is', null),
    eb('subscriptions.next_renew_date', 'is', null),
    eb('subscriptions.next_renew_date', '<=', eb.ref('subscriptions.resume_date')),
  ]);
}

function waiting(db: Db, accountId: number) {
  return db
    .selectFrom('subscriptions')
    .where('subscriptions.account_id', '=', accountId)
    .where('subscriptions.resume_pay_by', 'is not', null)
    .where('subscriptions.resume_date', 'is not', null)
    .where('subscriptions.resume_paid_on', 'is', null);
}

/** The subscriptions waiting on a resumption invoice among these: a billed period of theirs starting on the resume day. */
export async function listResumesWaitingOnInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<number[]> {
  if (invoiceIds.length === 0) return [];
  const rows = await waiting(db, accountId)
    .innerJoin('subscription_periods', (join) =>
      join
        .onRef('subscription_periods.subscription_id', '=', 'subscriptions.id')
        .onRef('subscription_periods.period_start', '=', 'subscriptions.resume_date'),
    )
    .where('subscription_periods.account_id', '=', accountId)
    .where('subscription_periods.invoice_id', 'in', invoiceIds)
    .select('subscriptions.id')
    .distinct()
    .orderBy('subscriptions.id')
    .execute();
  return rows.map((row) => row.id);
}

/** The waiting subscriptions whose `resume_pay_by` came by `on`, a page at a time in id order. */
export async function listResumesUnpaidBy(
  db: Db,
  accountId: number,
  on: PlainDate,
  page: { afterId: number; limit: number },
): Promise<number[]> {
  const rows = await waiting(db, accountId)
    .where('subscriptions.resume_pay_by', '<=', on)
    .where('subscriptions.id', '>', page.afterId)
    .select('subscriptions.id')
    .orderBy('subscriptions.id')
    .limit(page.limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The billed periods from the resume day on, with their invoices: the resumption's. */
export async function listPeriodsFrom(
  db: Db,
  accountId: number,
  subscriptionId: number,
  from: PlainDate,
): Promise<{ periodNo: number; invoiceId: number | null }[]> {
  const rows = await db
    .selectFrom('subscription_periods')
    .select(['period_no', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('period_start', '>=', from)
    .orderBy('period_no')
    .execute();
  return rows.map((row) => ({ periodNo: row.period_no, invoiceId: row.invoice_id }));
}
