import type { FieldProblem } from '../../errors.ts';
import { refusedCheckMessage } from './checkRefusals.ts';
import * as auth from './portalAuth.service.ts';
import type { FormFields, PortalPage } from './portalHttp.ts';

const loginPage = (page: PortalPage, status: number, data: Record<string, unknown>) =>
  page.render(status, 'login', { title: 'Sign in', csrf: page.formToken(), ...data });

/** Why the sign-in form is shown again: the session ended, the password was reset, or the customer signed out. */
export type SignInReason = 'ended' | 'reset' | 'out' | undefined;

const SIGN_IN_NOTICES = {
  ended: 'Your session ended. Sign in again to continue.',
  reset: 'Your password was changed. Sign in with the new one.',
  out: 'You are signed out.',
};

/** The sign-in form, with what brought the customer back to it. */
export const signInFormPage = (page: PortalPage, reason: SignInReason) =>
  loginPage(page, 200, { notice: reason === undefined ? undefined : SIGN_IN_NOTICES[reason] });

/** Signs in with a username and password: a session, or the form again with why not (paused, busy, refused). */
export async function signInPage(page: PortalPage, fields: FormFields) {
  const username = (fields['username'] ?? '').slice(0, 200);
  const password = (fields['password'] ?? '').slice(0, 1024);
  const errors: FieldProblem[] = [];
  if (username.trim() === '') errors.push({ field: 'username', message: 'Enter your username' });
  if (password === '') errors.push({ field: 'password', message: 'Enter your password' });
  if (errors.length) return loginPage(page, 422, { errors, username });
  const result = await auth.signIn(page.portal.ctx, page.portal.passwordChecks, {
    username,
    password,
    clientAddress: page.request.ip,
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
  page.request.log.info({ accountId: page.portal.account.id }, 'portal sign-in');
  return page.redirect('');
}

/** Signs in with a sign-in link, which works once and for a few minutes only. */
export async function signInWithLinkPage(page: PortalPage, token: string) {
  const sessionId = await auth.signInWithLink(page.portal.ctx, token);
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
}
