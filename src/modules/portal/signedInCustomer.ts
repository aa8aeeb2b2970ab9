import { DomainError } from '../../errors.ts';
import { getInvoice, listInvoicesOfCustomer } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import type { ServiceContext } from '../../context.ts';
import type { Page } from '../../core/paging.ts';
import type { SignedInPage } from './portalHttp.ts';

/**
 * What a signed-in contact may read: its own customer's records only. Another customer's id, like an id that does
 * not exist, is not found (docs/design/portal.md, "Pages").
 */

export const newestFirst = (invoices: Invoice[]) =>
  [...invoices].sort((a, b) => b.invoiceDate.localeCompare(a.invoiceDate) || (b.id ?? 0) - (a.id ?? 0));

/** How many records one read of a list takes while a page gathers all of the customer's. */
const READ_BATCH = 500;

/**
 * Every record of a paged list (the ledger's lists page by creation order), read in batches, for a page that shows
 * them in another order.
 */
export async function everyRecord<T>(read: (page: Page) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += READ_BATCH) {
    const batch = await read({ limit: READ_BATCH, offset });
    all.push(...batch);
    if (batch.length < READ_BATCH) return all;
  }
}

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

/**
 * The record an id of the page's path names, when it is the session's customer's; undefined otherwise. An id that
 * is not a number, one that does not exist (`load` throws not_found) and another customer's are alike not found,
 * so a page cannot tell them apart. `ownerOf` answers undefined for a record no customer may read (a draft).
 */
export async function ownedBySession<T>(
  page: SignedInPage,
  id: string,
  load: (ctx: ServiceContext, id: number) => Promise<T>,
  ownerOf: (record: T) => number | null | undefined,
): Promise<T | undefined> {
  if (!/^\d{1,15}$/.test(id)) return undefined;
  let record: T;
  try {
    record = await load(page.portal.ctx, Number(id));
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'not_found') return undefined;
    throw error;
  }
  return ownerOf(record) === page.session.customerId ? record : undefined;
}

/** The session's customer's issued invoice, or undefined: another customer's, a draft or none is not found. */
export function invoiceOfSession(page: SignedInPage, id: string): Promise<Invoice | undefined> {
  return ownedBySession(page, id, getInvoice, (invoice) =>
    invoice.isDraft ? undefined : invoice.customer.id,
  );
}
