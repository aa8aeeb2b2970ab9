import { DomainError } from '../../errors.ts';
import { getInvoice, listInvoicesOfCustomer } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import type { SignedInPage } from './portalHttp.ts';

/**
 * What a signed-in contact may read: its own customer's records only. Another customer's id, like an id that does
 * not exist, is not found (docs/design/portal.md, "Pages").
 */

export const newestFirst = (invoices: Invoice[]) =>
  [...invoices].sort((a, b) => b.invoiceDate.localeCompare(a.invoiceDate) || (b.id ?? 0) - (a.id ?? 0));

/** The signed-in customer's issued invoices (drafts are the business's own). */
export async function issuedInvoicesOf(page: SignedInPage): Promise<Invoice[]> {
  const all = await listInvoicesOfCustomer(page.portal.ctx, page.session.customerId, {
    limit: 1000,
    offset: 0,
  });
  return all.filter((invoice) => !invoice.isDraft);
}

/**
 * What "Pay all overdue" pays and the overview's Overdue figure adds up: past due, owing, in the customer's
 * currency (the portal charges in that currency only).
 */
export const overdueInvoices = (invoices: readonly Invoice[], currencyCode: string): Invoice[] =>
  invoices.filter(
    (invoice) =>
      invoice.status === 'Past Due' &&
      invoice.currencyCode === currencyCode &&
      invoice.balances.balanceMinor > 0,
  );

/** The session's customer's issued invoice, or undefined: another customer's, a draft or none is not found. */
export async function invoiceOfSession(page: SignedInPage, id: string): Promise<Invoice | undefined> {
  if (!/^\d{1,15}$/.test(id)) return undefined;
  try {
    const invoice = await getInvoice(page.portal.ctx, Number(id));
    return invoice.customer.id === page.session.customerId && !invoice.isDraft ? invoice : undefined;
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'not_found') return undefined;
    throw error;
  }
}
