import type { ServiceContext } from '../../context.ts';

/** What credit first asks of grants: the invoices still open after the customer's own money, in order. */
export interface GrantCreditRequest {
  customerId: number;
  currencyCode: string;
  invoiceIds: readonly number[];
}

/** Pays the invoices from the customer's grants under its lock (held); returns what it applied to each, by id. */
export type GrantCreditPort = (
  ctx: ServiceContext,
  request: GrantCreditRequest,
) => Promise<Map<number, number>>;

/** Told, in the allocating transaction, of invoices that became Paid. */
export type InvoicesPaidListener = (ctx: ServiceContext, invoiceIds: readonly number[]) => Promise<void>;

/** Gives back up to `amountMinor` of the credit grants' money on an invoice, before a credit note is allocated to it. */
export type CreditGiveBack = (
  ctx: ServiceContext,
  request: { customerId: number; invoiceId: number; amountMinor: number },
) => Promise<void>;

/**
 * Told, in the reversing transaction, of the invoices a payment paid when the payment is reversed or deleted: they
 * owe that money again, and a paid top-up's credit that was never kept is voided (docs/credits.md, "A reversed
 * top-up").
 */
export type InvoicesUnpaidListener = (ctx: ServiceContext, invoiceIds: readonly number[]) => Promise<void>;

/** Money a credit note or a negative adjustment put on an invoice (above 0) or took off it (below 0). */
export interface InvoiceCredited {
  invoiceId: number;
  deltaMinor: number;
}

/**
 * Told, in the allocating transaction and after the invoices' figures moved, of the credit notes' and negative
 * adjustments' money that moved on invoices: a paid top-up's invoice credited takes the credit it stands for out of
 * its grant, and may refuse (docs/credits.md, "Crediting a top-up"); a refusal rolls the whole change back.
 */
export type InvoicesCreditedListener = (
  ctx: ServiceContext,
  credited: readonly InvoiceCredited[],
) => Promise<void>;

/**
 * What the ledger asks of the modules above it when it changes an allocation (`ctx.ports.ledger`, filled by
 * src/modulePorts.ts; docs/credits.md, "Consumption order"): credit first's last step, the customer's credit grants
 * paying what its own money left open, and their money given back before a credit note; and, in the allocating
 * transaction, the invoices that became paid (a paid top-up's grant, a subscription that starts or resumes when
 * paid), that owe again (a reversed top-up's credit voided), or that were credited (a top-up's credit taken back).
 */
export interface LedgerPorts {
  grantCredit: GrantCreditPort;
  giveBack: CreditGiveBack;
  invoicesPaid: InvoicesPaidListener;
  invoicesUnpaid: InvoicesUnpaidListener;
  invoicesCredited: InvoicesCreditedListener;
}

declare module '../../context.ts' {
  interface Ports {
    ledger: LedgerPorts;
  }
}
