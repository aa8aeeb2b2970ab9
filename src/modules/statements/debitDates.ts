import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';

export function debitDatesOf(
  ctx: ServiceContext,
  paymentIds: readonly number[],
): Promise<ReadonlyMap<number, PlainDate>> {
  if (paymentIds.length === 0) return Promise.resolve(new Map());
  return ctx.ports.statements.debitDates(ctx, paymentIds);
}
