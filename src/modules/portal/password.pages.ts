import { Type } from '@sinclair/typebox';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { App } from '../../http/types.ts';
import * as auth from './portalAuth.service.ts';
import * as reset from './passwordReset.service.ts';
import type { FormFields, PortalPage, PortalRequests } from './portalHttp.ts';
import { linkOrigin } from '../../http/origin.ts';
import type { PortalDeps } from './portalHttp.ts';
import { SlugParams, TokenParams } from './portal.schemas.ts';
import { refusedCheckMessage } from './checkRefusals.ts';

interface PasswordForm {
  csrf: string;
  action: string;
  /** Changing asks for the current password; a reset link stands in for it. */
  askCurrent: boolean;
  heading: string;
  errors?: FieldProblem[];
  notice?: string;
}

const passwordPage = (page: PortalPage, status: number, form: PasswordForm) =>
  page.render(status, 'newPassword', {
    title: form.heading,
    current: 'password',
    invalidFields: (form.errors ?? []).map((e) => e.field),
    ...form,
  });

/** A new password and its confirmation, checked as the form shows them; the rule itself is the service's. */
const newPasswordProblems = (fields: FormFields): FieldProblem[] =>
  (fields['Password'] ?? '') !== (fields['ConfirmPassword'] ?? '')
    ? [{ field: 'ConfirmPassword', message: 'The two new passwords are not the same' }]
    : [];

const asFormErrors = (error: ValidationError): FieldProblem[] =>
  error.fields.map((p) => ({
    field: p.field,
    message:
      p.field === 'CurrentPassword' ? 'Your current password is not right' : `The new password ${p.message}`,
  }));

const resetLinkUnusable = (page: PortalPage) =>
  page.message(410, {
    title: 'Link not valid',
    heading: 'This link cannot be used',
    message: 'Password links work once, for 30 minutes. Ask for a new one.',
    link: { href: `${page.portal.base}reset`, text: 'Ask for a new link' },
  });

/** Changing a password when signed in, and the forgotten-password flow (docs/portal.md, "Sign-in, sessions and passwords"). */
export function registerPasswordRoutes(portal: App, pages: PortalRequests, deps: PortalDeps): void {
  const changeForm = (page: PortalPage & { session: auth.PortalSession }): PasswordForm => ({
    csrf: page.session.csrfToken,
    action: `${page.portal.base}password`,
    askCurrent: true,
    heading: 'Change your password',
  });

  const resetForm = (page: PortalPage, token: string): PasswordForm => ({
    csrf: page.formToken(),
    action: `${page.portal.base}reset/${token}`,
    askCurrent: false,
    heading: 'Choose a new password',
  });

  portal.get(
    '/portal/:slug/password',
    {
      schema: {
        hide: true,
        params: SlugParams,
        querystring: Type.Object({ changed: Type.Optional(Type.String({ maxLength: 1 })) }),
      },
    },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      if (!page) return reply;
      return passwordPage(page, 200, {
        ...changeForm(page),
        notice: request.query.changed
          ? 'Your password was changed. Other devices signed in with the old one have been signed out.'
          : undefined,
      });
    },
  );

  portal.post(
    '/portal/:slug/password',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      if (!form || !(await pages.withinFormLimit(form.page))) return reply;
      const { page, fields } = form;
      const mismatch = newPasswordProblems(fields);
      if (mismatch.length) return passwordPage(page, 422, { ...changeForm(page), errors: mismatch });
      try {
        const result = await auth.changePassword(page.portal.ctx, page.portal.passwordChecks, page.session, {
          currentPassword: (fields['CurrentPassword'] ?? '').slice(0, 1024),
          newPassword: fields['Password'] ?? '',
          clientAddress: request.ip,
        });
        if (result.kind !== 'changed') {
          return passwordPage(page, 429, {
            ...changeForm(page),
            errors: [{ field: 'CurrentPassword', message: refusedCheckMessage(page, result) }],
          });
        }
        page.setSessionCookie(result.sessionId);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return passwordPage(page, 422, { ...changeForm(page), errors: asFormErrors(error) });
      }
      return page.redirect('password?changed=1');
    },
  );

  portal.get(
    '/portal/:slug/reset',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const page = await pages.open(request, reply, request.params.slug);
      if (!page) return reply;
      return page.render(200, 'reset', { title: 'Forgotten password', csrf: page.formToken() });
    },
  );

  portal.post(
    '/portal/:slug/reset',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const form = await pages.publicForm(request, reply, request.params.slug);
      if (!form || !(await pages.withinFormLimit(form.page))) return reply;
      const { page, fields } = form;
      const username = (fields['username'] ?? '').slice(0, 200);
      if (username.trim() === '') {
        return page.render(422, 'reset', {
          title: 'Forgotten password',
          csrf: page.formToken(),
          errors: [{ field: 'username', message: 'Enter your username' }],
        });
      }
      // docs/portal.md, "PUBLIC_URL and links": the Host header (or X-Forwarded-Host) is the client's to choose, and a
      // link built from it would carry the reset token to whatever host the client named.
      const origin = linkOrigin(request, deps.publicUrl);
      if (origin === undefined) {
        request.log.warn(
          'PUBLIC_URL is not set: a password reset e-mail was not sent (docs/portal.md, "HTTPS")',
        );
      } else {
        // docs/design/portal.md, "Pages": the same answer in the same time whether or not the username names a
        // contact, so the look-up, the token and the e-mail run after the answer is sent.
        void reset
          .requestPasswordReset(page.portal.ctx, { username, portalUrl: `${origin}${page.portal.base}` })
          .catch((error: unknown) => request.log.error({ err: error }, 'portal password reset failed'));
      }
      return page.render(200, 'reset', { title: 'Forgotten password', sent: true });
    },
  );

  portal.get(
    '/portal/:slug/reset/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const page = await pages.open(request, reply, request.params.slug);
      if (!page) return reply;
      if (!(await reset.isResetTokenUsable(page.portal.ctx, request.params.token)))
        return resetLinkUnusable(page);
      return passwordPage(page, 200, resetForm(page, request.params.token));
    },
  );

  portal.post(
    '/portal/:slug/reset/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const form = await pages.publicForm(request, reply, request.params.slug);
      if (!form) return reply;
      const { page, fields } = form;
      const token = request.params.token;
      const mismatch = newPasswordProblems(fields);
      if (mismatch.length) return passwordPage(page, 422, { ...resetForm(page, token), errors: mismatch });
      try {
        if (!(await reset.resetPassword(page.portal.ctx, token, fields['Password'] ?? ''))) {
          return resetLinkUnusable(page);
        }
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return passwordPage(page, 422, { ...resetForm(page, token), errors: asFormErrors(error) });
      }
      return page.redirect('login?reset=1');
    },
  );
}
