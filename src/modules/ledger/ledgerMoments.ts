import type { ServiceContext } from '../../context.ts';
import type { InvoiceCredited } from './ports.ts';

// The ledger's moments told to the modules above through `ctx.ports.ledger` (ports.ts); nothing to tell, no call.

export async function tellInvoicesPaid(ctx: ServiceContext, invoiceIds: readonly number[]): Promise<void> {
  if (invoiceIds.length > 0) await ctx.ports.ledger.invoicesPaid(ctx, invoiceIds);
}

export async function tellInvoicesUnpaid(ctx: ServiceContext, invoiceIds: readonly number[]): Promise<void> {
  if (invoiceIds.length > 0) await ctx.ports.ledger.invoicesUnpaid(ctx, invoiceIds);
}

export async function tellInvoicesCredited(
  ctx: ServiceContext,
  credited: readonly InvoiceCredited[],
): Promise<void> {
  if (credited.length > 0) await ctx.ports.ledger.invoicesCredited(ctx, credited);
}
