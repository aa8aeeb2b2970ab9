import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { owed } from './invoice.repository.ts';

/**
 * Ids of the account's open invoices due between `due.from` and `due.to` (both included) that nobody is collecting
 * now (no automatic try planned, no debit pending) and that still owe something, in id order after `afterId`: the
 * invoices a customer may be reminded of (docs/gateways.md, "The collection loop"). One statement; the filter runs in
 * SQL so that a page never reads the account's other open invoices.
 */
export async function unpaidInvoiceIdsDueBetween(
  ctx: ServiceContext,
  due: { from: PlainDate; to: PlainDate },
  afterId: number,
  limit: number,
): Promise<number[]> {
  const rows = await ctx.db
    .selectFrom('invoices as i')
    .select('i.id')
    .where('i.account_id', '=', ctx.account.id)
    .where('i.id', '>', afterId)
    .where('i.is_draft', '=', false)
    .where('i.is_cancelled', '=', false)
    .where('i.due_date', '>=', due.from)
    .where('i.due_date', '<=', due.to)
    .where('i.next_try_date', 'is', null)
    .where('i.paid_pending_minor', '=', 0)
    .where((eb) =>
      eb(eb('i.total_minor', '-', eb('i.paid_actual_minor', '+', eb.ref('i.negative_adjs_minor'))), '>', 0),
    )
    .orderBy('i.id')
    .limit(limit)
    .execute();
  return rows.map((row) => Number(row.id));
}

/**
 * Of these customers, those with an issued, not cancelled invoice still owing something (pending payments taken
 * off), with the currencies they owe in: where the daily pass of open invoices pays from credit (docs/credits.md,
 * "Consumption order"). One statement; read without a lock, so a hint that the pass reads again under the lock.
 */
export async function customersOwingIn(
  ctx: ServiceContext,
  customerIds: readonly number[],
): Promise<{ customerId: number; currencyCode: string }[]> {
  if (customerIds.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('invoices')
    .select(['customer_id', 'currency_code'])
    .distinct()
    .where('account_id', '=', ctx.account.id)
    .where('customer_id', 'in', [...new Set(customerIds)])
    .where(owed)
    .execute();
  return rows.map((row) => ({ customerId: Number(row.customer_id), currencyCode: row.currency_code }));
}
