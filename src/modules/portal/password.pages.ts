import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { linkOrigin } from '../../http/origin.ts';
import type { PortalDeps, PortalRequests } from './portalHttp.ts';
import { SlugParams, TokenParams } from './portal.schemas.ts';
import {
  changePasswordFormPage,
  changePasswordPage,
  requestResetPage,
  resetFormPage,
  resetPasswordPage,
} from './passwordPage.ts';

const ChangedQuery = Type.Object({ changed: Type.Optional(Type.String({ maxLength: 1 })) });

/**
 * Changing a password when signed in, and the forgotten-password flow (docs/portal.md, "Sign-in, sessions and
 * passwords"). Each route parses and answers with its page (passwordPage.ts).
 */
export function registerPasswordRoutes(portal: App, pages: PortalRequests, deps: PortalDeps): void {
  const bySlug = { schema: { hide: true, params: SlugParams } };
  const byToken = { schema: { hide: true, params: TokenParams } };

  portal.get(
    '/portal/:slug/password',
    { schema: { hide: true, params: SlugParams, querystring: ChangedQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? changePasswordFormPage(page, Boolean(request.query.changed)) : reply;
    },
  );
  portal.post('/portal/:slug/password', bySlug, async (request, reply) => {
    const form = await pages.signedInForm(request, reply, request.params.slug);
    if (!form || !(await pages.withinFormLimit(form.page))) return reply;
    return changePasswordPage(form.page, form.fields);
  });
  portal.get('/portal/:slug/reset', bySlug, async (request, reply) => {
    const page = await pages.open(request, reply, request.params.slug);
    return page ? page.render(200, 'reset', { title: 'Forgotten password', csrf: page.formToken() }) : reply;
  });
  portal.post('/portal/:slug/reset', bySlug, async (request, reply) => {
    const form = await pages.publicForm(request, reply, request.params.slug);
    if (!form || !(await pages.withinFormLimit(form.page))) return reply;
    // docs/portal.md, "PUBLIC_URL and links": the Host header (or X-Forwarded-Host) is the client's to choose, and a
    // link built from it would carry the reset token to whatever host the client named.
    return requestResetPage(form.page, form.fields, linkOrigin(request, deps.publicUrl));
  });
  portal.get('/portal/:slug/reset/:token', byToken, async (request, reply) => {
    const page = await pages.open(request, reply, request.params.slug);
    return page ? resetFormPage(page, request.params.token) : reply;
  });
  portal.post('/portal/:slug/reset/:token', byToken, async (request, reply) => {
    const form = await pages.publicForm(request, reply, request.params.slug);
    return form ? resetPasswordPage(form.page, request.params.token, form.fields) : reply;
  });
}
