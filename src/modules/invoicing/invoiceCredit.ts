import type { ServiceContext } from '../../context.ts';

/**
 * The ports through which prepaid credit (the credits module, above invoicing) takes part in an invoice's life
 * (docs/credits.md, "Consumption order"): when invoices are issued, the customer's credit grants pay them in the
 * issuing transaction; before an issued invoice is cancelled, the credit it was paid with goes back to its grants.
 * `src/connectModules.ts` plugs them in; a port not connected fails loudly.
 */

/** An invoice just issued: whose, and in which currency. */
export interface IssuedInvoice {
  invoiceId: number;
  customerId: number;
  currencyCode: string;
}

export type InvoicesIssuedListener = (ctx: ServiceContext, issued: readonly IssuedInvoice[]) => Promise<void>;
export type BeforeInvoiceCancel = (ctx: ServiceContext, invoice: IssuedInvoice) => Promise<void>;
/** What prepaid credit pays on each invoice now, by id (an invoice it pays nothing on is absent). */
export type PrepaidCreditReader = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<Map<number, number>>;

let issuedListener: InvoicesIssuedListener | undefined;
let beforeCancel: BeforeInvoiceCancel | undefined;
let creditApplied: PrepaidCreditReader | undefined;

export function registerInvoiceCredit(ports: {
  invoicesIssued: InvoicesIssuedListener;
  beforeCancel: BeforeInvoiceCancel;
  creditApplied: PrepaidCreditReader;
}): void {
  issuedListener = ports.invoicesIssued;
  beforeCancel = ports.beforeCancel;
  creditApplied = ports.creditApplied;
}

/** The part of an invoice's credits that prepaid credit pays: its PDF shows it on a line of its own. */
export async function prepaidCreditOf(ctx: ServiceContext, invoiceId: number): Promise<number> {
  if (!creditApplied)
    throw new Error('the invoice-credit port is not registered: call connectModules() at start');
  return (await creditApplied(ctx, [invoiceId])).get(invoiceId) ?? 0;
}

export async function tellInvoicesIssued(
  ctx: ServiceContext,
  issued: readonly IssuedInvoice[],
): Promise<void> {
  if (issued.length === 0) return;
  if (!issuedListener)
    throw new Error('the invoice-credit port is not registered: call connectModules() at start');
  await issuedListener(ctx, issued);
}

export async function releaseCreditBeforeCancel(ctx: ServiceContext, invoice: IssuedInvoice): Promise<void> {
  if (!beforeCancel)
    throw new Error('the invoice-credit port is not registered: call connectModules() at start');
  await beforeCancel(ctx, invoice);
}
