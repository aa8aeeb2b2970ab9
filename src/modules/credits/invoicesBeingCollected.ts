import type { ServiceContext } from '../../context.ts';

export function invoicesBeingCollected(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<ReadonlySet<number>> {
  if (invoiceIds.length === 0) return Promise.resolve(new Set());
  return ctx.ports.credits.invoicesBeingCollected(ctx, invoiceIds);
}
