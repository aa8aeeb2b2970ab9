import type { App } from '../../http/types.ts';
import { allowWidget, portalOrigin } from './portalCapture.ts';
import type { PortalDeps, PortalRequests } from './portalHttp.ts';
import { IdParams, SlugParams } from './portal.schemas.ts';
import {
  completeNewCardPage,
  paidPage,
  payInvoicePage,
  payOverduePage,
  payWithNewCardPage,
} from './payPage.ts';

/**
 * Paying: an invoice's balance, or every overdue invoice's at once, with the primary card (docs/portal.md,
 * "Paying and payment methods"). Each route parses and answers with its page (payPage.ts).
 */
export function registerPayRoutes(portal: App, pages: PortalRequests, deps: PortalDeps): void {
  const ownOrigin = (request: Parameters<typeof portalOrigin>[1]) => portalOrigin(deps, request);
  const byId = { schema: { hide: true, params: IdParams } };

  portal.get(
    '/portal/:slug/invoices/:id/pay-card',
    { schema: { hide: true, params: IdParams }, onSend: allowWidget(ownOrigin) },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? payWithNewCardPage(page, request.params.id, ownOrigin(request)) : reply;
    },
  );
  portal.post('/portal/:slug/invoices/:id/pay-card', byId, async (request, reply) => {
    const form = await pages.signedInForm(request, reply, request.params.slug);
    return form ? completeNewCardPage(form.page, request.params.id, form.fields) : reply;
  });
  portal.post('/portal/:slug/invoices/:id/pay', byId, async (request, reply) => {
    const form = await pages.signedInForm(request, reply, request.params.slug);
    return form ? payInvoicePage(form.page, request.params.id, form.fields) : reply;
  });
  portal.post(
    '/portal/:slug/pay-overdue',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      return form ? payOverduePage(form.page, form.fields) : reply;
    },
  );
  portal.get('/portal/:slug/paid/:id', byId, async (request, reply) => {
    const page = await pages.signedIn(request, reply, request.params.slug);
    return page ? paidPage(page, request.params.id) : reply;
  });
}
