import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { SlugParams } from './portal.schemas.ts';
import { detailsPage, saveDetailsPage } from './detailsPage.ts';

const DetailsQuery = Type.Object({ saved: Type.Optional(Type.String({ maxLength: 1 })) });

/**
 * Billing details: the customer's company, address and VAT number, and the contact's own e-mail. Each route parses
 * and answers with its page (detailsPage.ts).
 */
export function registerDetailsRoutes(portal: App, pages: PortalRequests): void {
  portal.get(
    '/portal/:slug/details',
    { schema: { hide: true, params: SlugParams, querystring: DetailsQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? detailsPage(page, Boolean(request.query.saved)) : reply;
    },
  );
  portal.post(
    '/portal/:slug/details',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      if (!form || !(await pages.withinFormLimit(form.page))) return reply;
      return saveDetailsPage(form.page, form.fields);
    },
  );
}
