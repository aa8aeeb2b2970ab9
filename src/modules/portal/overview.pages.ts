import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { SlugParams } from './portal.schemas.ts';
import { overviewPage } from './overviewPage.ts';

/** The overview (docs/portal.md): the route answers with its page (overviewPage.ts). */
export function registerOverviewRoutes(portal: App, pages: PortalRequests): void {
  portal.get('/portal/:slug', { schema: { hide: true, params: SlugParams } }, async (request, reply) => {
    const page = await pages.signedIn(request, reply, request.params.slug);
    return page ? overviewPage(page) : reply;
  });
}
