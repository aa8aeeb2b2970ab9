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

/** What an invoice's documents say of credit and its VAT (docs/tax.md, "What an invoice shows"). */
export interface InvoiceCreditWords {
  /** What prepaid credit pays on it now. */
  prepaidCreditMinor: number;
  /** It sells prepaid credit: with VAT (a tax invoice), or taxed when used (a receipt, no supply); null otherwise. */
  sale: 'when_sold' | 'when_used' | null;
  /** Each credit that took VAT off it, in words, with what it took and the VAT in it. */
  vatCredits: { label: string; amountMinor: number; taxMinor: number }[];
}

export const NO_CREDIT_WORDS: InvoiceCreditWords = { prepaidCreditMinor: 0, sale: null, vatCredits: [] };

/** What the documents of each invoice say of credit, by id (an invoice with nothing to say is absent). */
export type InvoiceCreditReader = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<Map<number, InvoiceCreditWords>>;

let issuedListener: InvoicesIssuedListener | undefined;
let beforeCancel: BeforeInvoiceCancel | undefined;
let creditApplied: InvoiceCreditReader | undefined;

export function registerInvoiceCredit(ports: {
  invoicesIssued: InvoicesIssuedListener;
  beforeCancel: BeforeInvoiceCancel;
  creditApplied: InvoiceCreditReader;
}): void {
  issuedListener = ports.invoicesIssued;
  beforeCancel = ports.beforeCancel;
  creditApplied = ports.creditApplied;
}

/** creditWordsOf for many invoices, by id (an invoice with nothing to say is absent). */
export function creditWordsOfInvoices(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, InvoiceCreditWords>> {
  if (!creditApplied)
    throw new Error('the invoice-credit port is not registered: call connectModules() at start');
  return invoiceIds.length === 0 ? Promise.resolve(new Map()) : creditApplied(ctx, invoiceIds);
}

/** What an invoice's documents say of credit: prepaid credit's line, a top-up's kind, the VAT credits took off. */
export async function creditWordsOf(ctx: ServiceContext, invoiceId: number): Promise<InvoiceCreditWords> {
  if (!creditApplied)
    throw new Error('the invoice-credit port is not registered: call connectModules() at start');
  return (await creditApplied(ctx, [invoiceId])).get(invoiceId) ?? NO_CREDIT_WORDS;
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
