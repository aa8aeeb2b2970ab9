import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { PageQuery, SlugParams } from './portal.schemas.ts';
import { paymentsPage } from './paymentsPage.ts';

/**
 * Payments and credit notes with their allocations (docs/portal.md, "Statement and payments"): the route parses
 * and answers with its page (paymentsPage.ts).
 */
export function registerPaymentsRoutes(portal: App, pages: PortalRequests): void {
  portal.get(
    '/portal/:slug/payments',
    { schema: { hide: true, params: SlugParams, querystring: PageQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? paymentsPage(page, request.query.page) : reply;
    },
  );
}
