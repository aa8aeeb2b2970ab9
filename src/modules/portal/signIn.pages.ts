import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { SlugParams, TokenParams } from './portal.schemas.ts';
import { signInFormPage, signInPage, signInWithLinkPage } from './signInPage.ts';

const SignInQuery = Type.Object({
  ended: Type.Optional(Type.String({ maxLength: 1 })),
  reset: Type.Optional(Type.String({ maxLength: 1 })),
  out: Type.Optional(Type.String({ maxLength: 1 })),
});

/**
 * Signing in with a username and password or a sign-in link, and signing out (docs/portal.md). Each route parses
 * and answers with its page (signInPage.ts).
 */
export function registerSignInRoutes(portal: App, pages: PortalRequests): void {
  const bySlug = { schema: { hide: true, params: SlugParams } };
  portal.get(
    '/portal/:slug/login',
    { schema: { hide: true, params: SlugParams, querystring: SignInQuery } },
    async (request, reply) => {
      const page = await pages.open(request, reply, request.params.slug);
      if (!page) return reply;
      const { ended, reset, out } = request.query;
      return signInFormPage(page, ended ? 'ended' : reset ? 'reset' : out ? 'out' : undefined);
    },
  );
  portal.post('/portal/:slug/login', bySlug, async (request, reply) => {
    const form = await pages.publicForm(request, reply, request.params.slug);
    if (!form || !(await pages.withinFormLimit(form.page))) return reply;
    return signInPage(form.page, form.fields);
  });
  portal.get(
    '/portal/:slug/link/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const page = await pages.open(request, reply, request.params.slug);
      return page ? signInWithLinkPage(page, request.params.token) : reply;
    },
  );
  portal.post('/portal/:slug/logout', bySlug, async (request, reply) =>
    pages.signOut(request, reply, request.params.slug),
  );
}
