import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { IdParams, PageQuery, SlugParams } from './portal.schemas.ts';
import { invoicePage, invoicePdfPage, invoicesPage } from './invoicesPage.ts';

/**
 * Invoices: the list, one invoice, its PDF (docs/portal.md, "What customers can do"). Each route parses and answers
 * with its page (invoicesPage.ts).
 */
export function registerInvoiceRoutes(portal: App, pages: PortalRequests): void {
  portal.get(
    '/portal/:slug/invoices',
    { schema: { hide: true, params: SlugParams, querystring: PageQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? invoicesPage(page, request.query.page) : reply;
    },
  );
  portal.get(
    '/portal/:slug/invoices/:id',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? invoicePage(page, request.params.id) : reply;
    },
  );
  portal.get(
    '/portal/:slug/invoices/:id/pdf',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? invoicePdfPage(page, request.params.id) : reply;
    },
  );
}
