import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { IdParams } from './portal.schemas.ts';
import { pauseFormPage, pausePage, resumePage } from './pausePage.ts';

/**
 * GET and POST .../pause and POST .../resume (docs/portal.md, "Pausing"). Each route parses and answers with its
 * page (pausePage.ts).
 */
export function registerPauseRoutes(portal: App, pages: PortalRequests): void {
  const byId = { schema: { hide: true, params: IdParams } };
  portal.get('/portal/:slug/subscriptions/:id/pause', byId, async (request, reply) => {
    const page = await pages.signedIn(request, reply, request.params.slug);
    return page ? pauseFormPage(page, request.params.id) : reply;
  });
  portal.post('/portal/:slug/subscriptions/:id/pause', byId, async (request, reply) => {
    const form = await pages.signedInForm(request, reply, request.params.slug);
    return form ? pausePage(form.page, request.params.id, form.fields) : reply;
  });
  portal.post('/portal/:slug/subscriptions/:id/resume', byId, async (request, reply) => {
    const form = await pages.signedInForm(request, reply, request.params.slug);
    return form ? resumePage(form.page, request.params.id) : reply;
  });
}
