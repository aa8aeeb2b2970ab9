import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { IdParams, SlugParams } from './portal.schemas.ts';
import { mandatePdfPage, mandatesPage } from './mandatesPage.ts';

/**
 * Debit order mandates: the customer's mandates, to read, to download once signed, and to sign when the business
 * has sent one for signature (docs/portal.md, "Debit order mandates"). The terms are the business's: the portal
 * signs only a mandate the business made, on the hosted signing page every signee uses. Each route parses and
 * answers with its page (mandatesPage.ts).
 */
export function registerMandateRoutes(portal: App, pages: PortalRequests): void {
  portal.get(
    '/portal/:slug/mandates',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? mandatesPage(page) : reply;
    },
  );
  portal.get(
    '/portal/:slug/mandates/:id/pdf',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? mandatePdfPage(page, request.params.id) : reply;
    },
  );
}
