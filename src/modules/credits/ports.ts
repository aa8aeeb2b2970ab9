import type { ServiceContext } from '../../context.ts';

/**
 * Invoices being collected right now (collections, a higher module, answers through this port,
 * `ctx.ports.credits`, filled by src/modulePorts.ts): a card charge waiting for its answer, a capture widget's sale under way. Credit
 * that arrives leaves them to that answer (docs/credits.md, "Consumption order"), as credit first leaves a charge in
 * flight (docs/gateways.md, "Credit first"). A debit pending in a batch needs no asking: its payment already covers
 * what the invoice owes.
 */
export type InvoicesBeingCollected = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<ReadonlySet<number>>;

export interface CreditPorts {
  invoicesBeingCollected: InvoicesBeingCollected;
}

declare module '../../context.ts' {
  interface Ports {
    credits: CreditPorts;
  }
}
