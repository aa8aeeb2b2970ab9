import * as auth from './portalAuth.service.ts';
import type { PortalPage } from './portalHttp.ts';

/**
 * What a guarded password check that did not run says (docs/portal.md, "Sign-in, sessions and passwords"): paused
 * for failed sign-ins, too many checks by a signed-in contact, or the process too busy to check now.
 */

/** What a paused sign-in (or password check) is told: until when, and that the pause ends by itself. */
export const pausedMessage = (until: string, page: PortalPage) =>
  `Too many failed sign-ins. Try again after ${timeOfDay(until, page.portal.account.timeZone)}; the pause ends by itself.`;

/** What a password check refused for a full process is told (with Retry-After). */
export const BUSY_MESSAGE =
  'Many sign-ins are being checked at this moment. Try again in a few seconds; nothing was counted against you.';

/** An instant as the account's staff and customers read it: "14:35 (Africa/Johannesburg)". */
function timeOfDay(instant: string, timeZone: string): string {
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(
    new Date(instant),
  );
  return `${time} (${timeZone})`;
}

/** What a contact that checked its password too often while signed in is told, right or wrong as it was. */
export const tooManyChecksMessage = (until: string, page: PortalPage) =>
  `Your password was checked too many times in a short while. Try again after ${timeOfDay(until, page.portal.account.timeZone)}.`;

/** The message for a check that was paused or found the process busy; a busy one also sets Retry-After. */
export function refusedCheckMessage(page: PortalPage, check: auth.RefusedCheck): string {
  if (check.kind === 'locked') return pausedMessage(check.until, page);
  if (check.kind === 'too_many_checks') return tooManyChecksMessage(check.until, page);
  page.reply.header('retry-after', String(auth.BUSY_RETRY_SECONDS));
  return BUSY_MESSAGE;
}
