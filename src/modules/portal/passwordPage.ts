import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import * as auth from './portalAuth.service.ts';
import * as reset from './passwordReset.service.ts';
import type { FormFields, PortalPage, SignedInPage } from './portalHttp.ts';
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

const changeForm = (page: SignedInPage): PasswordForm => ({
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

/** The form that changes the signed-in contact's password; `changed`: it was just changed. */
export const changePasswordFormPage = (page: SignedInPage, changed: boolean) =>
  passwordPage(page, 200, {
    ...changeForm(page),
    notice: changed
      ? 'Your password was changed. Other devices signed in with the old one have been signed out.'
      : undefined,
  });

/** Changes the signed-in contact's password, which signs its other sessions out (a new session cookie here). */
export async function changePasswordPage(page: SignedInPage, fields: FormFields) {
  const mismatch = newPasswordProblems(fields);
  if (mismatch.length) return passwordPage(page, 422, { ...changeForm(page), errors: mismatch });
  try {
    const result = await auth.changePassword(page.portal.ctx, page.portal.passwordChecks, page.session, {
      currentPassword: (fields['CurrentPassword'] ?? '').slice(0, 1024),
      newPassword: fields['Password'] ?? '',
      clientAddress: page.request.ip,
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
}

/**
 * Asks for a reset link for `username`, e-mailed with links from `origin` (undefined: none can be made, and none is
 * sent). docs/design/portal.md, "Pages": the same answer in the same time whether or not the username names a
 * contact, so the look-up, the token and the e-mail run after the answer is sent.
 */
export function requestResetPage(page: PortalPage, fields: FormFields, origin: string | undefined) {
  const username = (fields['username'] ?? '').slice(0, 200);
  if (username.trim() === '') {
    return page.render(422, 'reset', {
      title: 'Forgotten password',
      csrf: page.formToken(),
      errors: [{ field: 'username', message: 'Enter your username' }],
    });
  }
  const log = page.request.log;
  if (origin === undefined) {
    log.warn('PUBLIC_URL is not set: a password reset e-mail was not sent (docs/portal.md, "HTTPS")');
  } else {
    void reset
      .requestPasswordReset(page.portal.ctx, { username, portalUrl: `${origin}${page.portal.base}` })
      .catch((error: unknown) => log.error({ err: error }, 'portal password reset failed'));
  }
  return page.render(200, 'reset', { title: 'Forgotten password', sent: true });
}

/** The new-password form of a reset link, while the link is usable. */
export async function resetFormPage(page: PortalPage, token: string) {
  if (!(await reset.isResetTokenUsable(page.portal.ctx, token))) return resetLinkUnusable(page);
  return passwordPage(page, 200, resetForm(page, token));
}

/** Sets the new password of a reset link, which then no longer works. */
export async function resetPasswordPage(page: PortalPage, token: string, fields: FormFields) {
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
}
