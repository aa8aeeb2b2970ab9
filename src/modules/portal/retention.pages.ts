import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { IdParams } from './portal.schemas.ts';
import { takeOfferPage } from './retentionPage.ts';

/** POST .../retention: the offer taken (retentionPage.ts; docs/portal.md, "Cancel with a way to stay"). */
export function registerRetentionRoutes(portal: App, pages: PortalRequests): void {
  portal.post(
    '/portal/:slug/subscriptions/:id/retention',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      return form ? takeOfferPage(form.page, request.params.id, form.fields) : reply;
    },
  );
}
