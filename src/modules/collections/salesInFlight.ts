import type { ServiceContext } from '../../context.ts';

/**
 * Invoices a capture widget's sale is paying now (widgets, a higher module, answers through this port, connected
 * once at start in src/connectModules.ts): a card submitted in the frame whose charge is under way, or charged and
 * not yet completed. The portal's Pay button and the collection run charge none of them meanwhile, as a capture's
 * sale charges no invoice their charges are in flight for (docs/portal.md, "Paying and payment methods").
 */
export type SalesInFlight = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<ReadonlySet<number>>;

let connected: SalesInFlight | undefined;

export function registerSalesInFlight(port: SalesInFlight): void {
  connected = port;
}

export function invoicesWithSalesInFlight(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<ReadonlySet<number>> {
  if (!connected)
    throw new Error('the sales-in-flight port is not registered: call connectModules() at start');
  if (invoiceIds.length === 0) return Promise.resolve(new Set());
  return connected(ctx, invoiceIds);
}
