import type { ServiceContext } from '../../context.ts';

/** Of these invoices, those a capture widget's sale is paying now (ports.ts, `SalesInFlight`). */
export function invoicesWithSalesInFlight(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<ReadonlySet<number>> {
  if (invoiceIds.length === 0) return Promise.resolve(new Set());
  return ctx.ports.collections.salesInFlight(ctx, invoiceIds);
}
