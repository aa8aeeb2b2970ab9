import type { ServiceContext } from '../../context.ts';

/**
 * The ports through which the credits module, above the ledger, takes part in the ledger's moments
 * (docs/architecture.md, "Module order"; docs/credits.md, "Consumption order"): credit first's last step, the
 * customer's credit grants paying what its own money left open; and the moment an invoice becomes paid, when a paid
 * top-up's grant comes into being. `src/connectModules.ts` plugs them in; a port not connected fails loudly.
 */

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

let grantCredit: GrantCreditPort | undefined;
let giveBack: CreditGiveBack | undefined;
let invoicesPaid: InvoicesPaidListener | undefined;

export function registerGrantCredit(ports: { pay: GrantCreditPort; giveBack: CreditGiveBack }): void {
  grantCredit = ports.pay;
  giveBack = ports.giveBack;
}

export async function giveGrantCreditBack(
  ctx: ServiceContext,
  request: { customerId: number; invoiceId: number; amountMinor: number },
): Promise<void> {
  if (!giveBack) throw new Error('the grant-credit port is not registered: call connectModules() at start');
  await giveBack(ctx, request);
}

export function registerInvoicesPaidListener(listener: InvoicesPaidListener): void {
  invoicesPaid = listener;
}

export function applyGrantCredit(
  ctx: ServiceContext,
  request: GrantCreditRequest,
): Promise<Map<number, number>> {
  if (!grantCredit)
    throw new Error('the grant-credit port is not registered: call connectModules() at start');
  return grantCredit(ctx, request);
}

export async function tellInvoicesPaid(ctx: ServiceContext, invoiceIds: readonly number[]): Promise<void> {
  if (invoiceIds.length === 0) return;
  if (!invoicesPaid)
    throw new Error('the invoices-paid port is not registered: call connectModules() at start');
  await invoicesPaid(ctx, invoiceIds);
}

/**
 * Told, in the reversing transaction, of the invoices a payment paid when the payment is reversed or deleted: they
 * owe that money again, and a paid top-up's credit that was never kept is voided (docs/credits.md, "A reversed
 * top-up").
 */
export type InvoicesUnpaidListener = (ctx: ServiceContext, invoiceIds: readonly number[]) => Promise<void>;

let invoicesUnpaid: InvoicesUnpaidListener | undefined;

export function registerInvoicesUnpaidListener(listener: InvoicesUnpaidListener): void {
  invoicesUnpaid = listener;
}

export async function tellInvoicesUnpaid(ctx: ServiceContext, invoiceIds: readonly number[]): Promise<void> {
  if (invoiceIds.length === 0) return;
  if (!invoicesUnpaid)
    throw new Error('the invoices-unpaid port is not registered: call connectModules() at start');
  await invoicesUnpaid(ctx, invoiceIds);
}

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

let invoicesCredited: InvoicesCreditedListener | undefined;

export function registerInvoicesCreditedListener(listener: InvoicesCreditedListener): void {
  invoicesCredited = listener;
}

export async function tellInvoicesCredited(
  ctx: ServiceContext,
  credited: readonly InvoiceCredited[],
): Promise<void> {
  if (credited.length === 0) return;
  if (!invoicesCredited)
    throw new Error('the invoices-credited port is not registered: call connectModules() at start');
  await invoicesCredited(ctx, credited);
}
