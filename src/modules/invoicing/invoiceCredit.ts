import type { ServiceContext } from '../../context.ts';
import type { InvoiceCreditWords, IssuedInvoice } from './ports.ts';

/**
 * Prepaid credit's part in an invoice's life, asked of the credits module above through `ctx.ports.invoicing`
 * (ports.ts; docs/credits.md, "Consumption order").
 */

export const NO_CREDIT_WORDS: InvoiceCreditWords = { prepaidCreditMinor: 0, sale: null, vatCredits: [] };

/** creditWordsOf for many invoices, by id (an invoice with nothing to say is absent). */
export function creditWordsOfInvoices(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, InvoiceCreditWords>> {
  return invoiceIds.length === 0
    ? Promise.resolve(new Map())
    : ctx.ports.invoicing.creditWords(ctx, invoiceIds);
}

/** What an invoice's documents say of credit: prepaid credit's line, a top-up's kind, the VAT credits took off. */
export async function creditWordsOf(ctx: ServiceContext, invoiceId: number): Promise<InvoiceCreditWords> {
  return (await ctx.ports.invoicing.creditWords(ctx, [invoiceId])).get(invoiceId) ?? NO_CREDIT_WORDS;
}

/** Tells credits of invoices just issued, in the issuing transaction (none: nothing to tell). */
export async function tellInvoicesIssued(
  ctx: ServiceContext,
  issued: readonly IssuedInvoice[],
): Promise<void> {
  if (issued.length > 0) await ctx.ports.invoicing.invoicesIssued(ctx, issued);
}
