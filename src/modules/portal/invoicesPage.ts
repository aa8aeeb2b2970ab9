import { getCustomer } from '../customers/index.ts';
import { invoicePdfFilename, pendingDebitsOf, renderInvoicePdf } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import { invoiceWithFigures } from '../../readModels/invoices.view.ts';
import type { SignedInPage } from './portalHttp.ts';
import { invoiceDetail, invoiceRowsOf, pageNumber, payAttempt } from './portalViews.ts';
import { invoiceOfSession, issuedInvoicesOf, newestFirst, ownedBySession } from './signedInCustomer.ts';

const INVOICES_PER_PAGE = 25;

/** The customer's issued invoices, newest first, a page of them at a time. */
export async function invoicesPage(page: SignedInPage, pageOfInvoices: string | undefined) {
  const number = pageNumber(pageOfInvoices);
  const all = newestFirst(await issuedInvoicesOf(page));
  const link = (n: number) => `${page.portal.base}invoices${n === 1 ? '' : `?page=${n}`}`;
  return page.render(200, 'invoices', {
    title: 'Invoices',
    current: 'invoices',
    caption: 'Your invoices, newest first',
    invoices: await invoiceRowsOf(
      page.portal.ctx,
      all.slice((number - 1) * INVOICES_PER_PAGE, number * INVOICES_PER_PAGE),
    ),
    previous: number > 1 ? link(number - 1) : undefined,
    next: all.length > number * INVOICES_PER_PAGE ? link(number + 1) : undefined,
  });
}

/** One of the session's invoices (not found when it is another's), with its pay form while it is owed. */
export async function invoicePage(page: SignedInPage, id: string) {
  const invoice = await invoiceOfSession(page, id);
  if (!invoice) return page.notFound();
  const pending = await pendingDebitsOf(page.portal.ctx, [invoice.id!]);
  const detail = invoiceDetail(await invoiceWithFigures(page.portal.ctx, invoice), pending.get(invoice.id!));
  const customer = await getCustomer(page.portal.ctx, page.session.customerId);
  const owed = invoice.balances.balanceMinor > 0 && !invoice.isDraft;
  return page.render(200, 'invoice', {
    title: `Invoice ${detail.number}`,
    current: 'invoices',
    invoice: detail,
    // The portal charges in the customer's currency only (payInvoicesNow): another one is paid as the business says.
    pay: owed && invoice.currencyCode === customer.currencyCode ? { attempt: payAttempt() } : undefined,
    otherCurrency: owed && invoice.currencyCode !== customer.currencyCode,
  });
}

/** One of the session's issued invoices as a PDF. */
export async function invoicePdfPage(page: SignedInPage, id: string) {
  // The customer's place among its documents is taken before the invoice is read: a download refused for its
  // share or rate reads nothing (docs/operations.md, "PDF documents").
  const isTheirs = (invoice: Invoice) => !invoice.isDraft && invoice.customer.id === page.session.customerId;
  const rendered = await ownedBySession(
    page,
    id,
    (ctx, invoiceId) => renderInvoicePdf(ctx, invoiceId, isTheirs),
    ({ invoice }) => invoice.customer.id,
  );
  if (!rendered) return page.notFound();
  return page.sendPdf(invoicePdfFilename(rendered.invoice), rendered.pdf);
}
