import type { ServiceContext } from '../../context.ts';

/**
 * Invoices being collected right now (collections, a higher module, answers through this port, connected once at
 * start in src/connectModules.ts): a card charge waiting for its answer, a capture widget's sale under way. Credit
 * that arrives leaves them to that answer (docs/credits.md, "Consumption order"), as credit first leaves a charge in
 * flight (docs/gateways.md, "Credit first"). A debit pending in a batch needs no asking: its payment already covers
 * what the invoice owes.
 */
export type InvoicesBeingCollected = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<ReadonlySet<number>>;

let connected: InvoicesBeingCollected | undefined;

export function registerInvoicesBeingCollected(port: InvoicesBeingCollected): void {
  connected = port;
}

export function invoicesBeingCollected(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<ReadonlySet<number>> {
  if (!connected)
    throw new Error('the invoices-being-collected port is not registered: call connectModules() at start');
  if (invoiceIds.length === 0) return Promise.resolve(new Set());
  return connected(ctx, invoiceIds);
}
