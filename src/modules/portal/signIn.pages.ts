import { Type } from '@sinclair/typebox';
import type { FieldProblem } from '../../errors.ts';
import type { App } from '../../http/types.ts';
import { refusedCheckMessage } from './checkRefusals.ts';
import * as auth from './portalAuth.service.ts';
import type { PortalPage, PortalRequests } from './portalHttp.ts';
import { SlugParams, TokenParams } from './portal.schemas.ts';

/** Signing in with a username and password or a sign-in link, and signing out (docs/portal.md). */
export function registerSignInRoutes(portal: App, pages: PortalRequests): void {
  const loginPage = (page: PortalPage, status: number, data: Record<string, unknown>) =>
    page.render(status, 'login', { title: 'Sign in', csrf: page.formToken(), ...data });

  portal.get(
    '/portal/:slug/login',
    {
      schema: {
        hide: true,
        params: SlugParams,
        querystring: Type.Object({
          ended: Type.Optional(Type.String({ maxLength: 1 })),
          reset: Type.Optional(Type.String({ maxLength: 1 })),
          out: Type.Optional(Type.String({ maxLength: 1 })),
        }),
      },
    },
    async (request, reply) => {
      const page = await pages.open(request, reply, request.params.slug);
      if (!page) return reply;
      const notice = request.query.ended
        ? 'Your session ended. Sign in again to continue.'
        : request.query.reset
          ? 'Your password was changed. Sign in with the new one.'
          : request.query.out
            ? 'You are signed out.'
            : undefined;
      return loginPage(page, 200, { notice });
    },
  );

  portal.post(
    '/portal/:slug/login',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const form = await pages.publicForm(request, reply, request.params.slug);
      if (!form || !(await pages.withinFormLimit(form.page))) return reply;
      const { page, fields } = form;
      const username = (fields['username'] ?? '').slice(0, 200);
      const password = (fields['password'] ?? '').slice(0, 1024);
      const errors: FieldProblem[] = [];
      if (username.trim() === '') errors.push({ field: 'username', message: 'Enter your username' });
      if (password === '') errors.push({ field: 'password', message: 'Enter your password' });
      if (errors.length) return loginPage(page, 422, { errors, username });
      const result = await auth.signIn(page.portal.ctx, page.portal.passwordChecks, {
        username,
        password,
        clientAddress: request.ip,
      });
      if (result.kind === 'locked' || result.kind === 'busy') {
        return loginPage(page, 429, {
          username,
          invalid: result.kind === 'locked',
          errorsTitle: result.kind === 'locked' ? 'Sign-in is paused' : 'The portal is busy',
          errors: [{ field: 'username', message: refusedCheckMessage(page, result) }],
        });
      }
      if (result.kind === 'refused') {
        return loginPage(page, 401, {
          username,
          invalid: true,
          errors: [{ field: 'username', message: 'The username or password is not right.' }],
        });
      }
      page.setSessionCookie(result.sessionId);
      request.log.info({ accountId: page.portal.account.id }, 'portal sign-in');
      return page.redirect('');
    },
  );

  portal.get(
    '/portal/:slug/link/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const page = await pages.open(request, reply, request.params.slug);
      if (!page) return reply;
      const sessionId = await auth.signInWithLink(page.portal.ctx, request.params.token);
      if (!sessionId) {
        return page.message(410, {
          title: 'Link not valid',
          heading: 'This sign-in link cannot be used',
          message:
            'Sign-in links work once and for a few minutes only. Sign in with your username and password, or ask for a new link.',
          link: { href: `${page.portal.base}login`, text: 'Sign in' },
        });
      }
      page.setSessionCookie(sessionId);
      return page.redirect('');
    },
  );

  portal.post(
    '/portal/:slug/logout',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => pages.signOut(request, reply, request.params.slug),
  );
}
