import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { IdParams, PageQuery, SlugParams } from './portal.schemas.ts';
import { buyCreditPage, creditPage, walletPage } from './creditPage.ts';

/**
 * Prepaid credit: the customer's wallets, each with its grants and history, and buying credit (docs/portal.md).
 * Each route parses and answers with its page (creditPage.ts).
 */
export function registerCreditRoutes(portal: App, pages: PortalRequests): void {
  portal.get(
    '/portal/:slug/credit',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? creditPage(page) : reply;
    },
  );
  portal.get(
    '/portal/:slug/credit/:id',
    { schema: { hide: true, params: IdParams, querystring: PageQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? walletPage(page, request.params.id, request.query.page) : reply;
    },
  );
  portal.post(
    '/portal/:slug/credit/:id/buy',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      return form ? buyCreditPage(form.page, request.params.id, form.fields) : reply;
    },
  );
}
