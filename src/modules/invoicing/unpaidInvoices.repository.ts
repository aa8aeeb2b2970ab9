import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { owed } from './invoice.repository.ts';

/**
 * The account's open invoices that nobody is collecting now (no automatic try planned, no debit pending) and that
 * still owe something: those a customer may be reminded of (docs/gateways.md, "The collection loop"). The filter runs
 * in SQL so that a page never reads the account's other open invoices.
 */
function remindable(ctx: ServiceContext) {
  return ctx.db
    .selectFrom('invoices as i')
    .where('i.account_id', '=', ctx.account.id)
    .where('i.is_draft', '=', false)
    .where('i.is_cancelled', '=', false)
    .where('i.next_try_date', 'is', null)
    .where('i.paid_pending_minor', '=', 0)
    .where((eb) =>
      eb(eb('i.total_minor', '-', eb('i.paid_actual_minor', '+', eb.ref('i.negative_adjs_minor'))), '>', 0),
    );
}

/** The days from `due.from` to `due.to` (both included) on which a remindable invoice of the account is due. */
export async function dueDatesOfUnpaidInvoices(
  ctx: ServiceContext,
  due: { from: PlainDate; to: PlainDate },
): Promise<PlainDate[]> {
  const rows = await remindable(ctx)
    .select('i.due_date')
    .distinct()
    .where('i.due_date', '>=', due.from)
    .where('i.due_date', '<=', due.to)
    .orderBy('i.due_date')
    .execute();
  return rows.map((row) => row.due_date);
}

/**
 * The account's remindable invoices due on `dueDate`, in id order after `afterId`, with their issue dates: one
 * statement on the index of due dates, whose rows are in id order within a day.
 */
export async function unpaidInvoicesDueOn(
  ctx: ServiceContext,
  dueDate: PlainDate,
  afterId: number,
  limit: number,
): Promise<{ id: number; invoiceDate: PlainDate }[]> {
  const rows = await remindable(ctx)
    .select(['i.id', 'i.invoice_date'])
    .where('i.due_date', '=', dueDate)
    .where('i.id', '>', afterId)
    .orderBy('i.id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: Number(row.id), invoiceDate: row.invoice_date }));
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
