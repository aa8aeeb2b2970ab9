import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { IdParams, PageQuery, SlugParams } from './portal.schemas.ts';
import { creditNotePdfPage, creditNotesPage } from './creditNotesPage.ts';

/**
 * Credit notes: the customer's tax credit notes (docs/tax.md, "Tax credit notes"), every credit that reduced what
 * an invoice charged, and each one's PDF (docs/portal.md, "Credit notes"). Each route parses and answers with its
 * page (creditNotesPage.ts).
 */
export function registerCreditNoteRoutes(portal: App, pages: PortalRequests): void {
  portal.get(
    '/portal/:slug/credit-notes',
    { schema: { hide: true, params: SlugParams, querystring: PageQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? creditNotesPage(page, request.query.page) : reply;
    },
  );
  portal.get(
    '/portal/:slug/credit-notes/:id/pdf',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? creditNotePdfPage(page, request.params.id) : reply;
    },
  );
}
