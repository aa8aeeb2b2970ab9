import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';

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
