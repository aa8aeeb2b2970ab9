import type { App } from '../../http/types.ts';
import { invoicePdfFilename, pendingDebitsOf, renderInvoicePdf } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import { invoiceWithFigures } from '../../readModels/invoices.view.ts';
import type { PortalRequests } from './portalHttp.ts';
import { invoiceOfSession, issuedInvoicesOf, newestFirst, ownedBySession } from './signedInCustomer.ts';
import { getCustomer } from '../customers/index.ts';
import { invoiceDetail, invoiceRowsOf, pageNumber, payAttempt } from './portalViews.ts';
import { IdParams, PageQuery, SlugParams } from './portal.schemas.ts';

const INVOICES_PER_PAGE = 25;

/** Invoices: the list, one invoice, its PDF (docs/portal.md, "What customers can do"). */
export function registerInvoiceRoutes(portal: App, pages: PortalRequests): void {
  portal.get(
    '/portal/:slug/invoices',
    { schema: { hide: true, params: SlugParams, querystring: PageQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      if (!page) return reply;
      const number = pageNumber(request.query.page);
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
    },
  );

  portal.get(
    '/portal/:slug/invoices/:id',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      if (!page) return reply;
      const invoice = await invoiceOfSession(page, request.params.id);
      if (!invoice) return page.notFound();
      const pending = await pendingDebitsOf(page.portal.ctx, [invoice.id!]);
      const detail = invoiceDetail(
        await invoiceWithFigures(page.portal.ctx, invoice),
        pending.get(invoice.id!),
      );
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
    },
  );

  portal.get(
    '/portal/:slug/invoices/:id/pdf',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      if (!page) return reply;
      // The customer's place among its documents is taken before the invoice is read: a download refused for its
      // share or rate reads nothing (docs/operations.md, "PDF documents").
      const isTheirs = (invoice: Invoice) =>
        !invoice.isDraft && invoice.customer.id === page.session.customerId;
      const rendered = await ownedBySession(
        page,
        request.params.id,
        (ctx, id) => renderInvoicePdf(ctx, id, isTheirs),
        ({ invoice }) => invoice.customer.id,
      );
      if (!rendered) return page.notFound();
      return page.sendPdf(invoicePdfFilename(rendered.invoice), rendered.pdf);
    },
  );
}
