import type { ServiceContext } from '../../context.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import type { DocumentSeller } from '../auth/index.ts';
import {
  findContactByUsername,
  findContactCredentials,
  setContactPassword,
  usernameKey,
} from '../customers/index.ts';
import { messageBody, queueMail } from '../mail/index.ts';
import * as repo from './portal.repository.ts';
import { HOUR_MS, at, madeUnderCurrentLogin, randomToken, sha256, wallNow } from './portalTokens.ts';

/** A forgotten password: a single-use link e-mailed to the contact, and the new password it sets (docs/portal.md). */

/** docs/design/portal.md, "Pages": a reset link lives 30 minutes. */
export const RESET_TOKEN_MS = 30 * 60_000;
/** At most this many reset e-mails an hour to one contact, so that nobody can mail-bomb it (docs/portal.md). */
export const RESET_MAILS_PER_HOUR = 3;

/**
 * Forgotten password: e-mails the contact a single-use link when the username names an active contact that has
 * had fewer than RESET_MAILS_PER_HOUR in the last hour; nothing otherwise. The caller answers the same either way,
 * and without waiting for this (docs/design/portal.md, "Pages").
 */
export async function requestPasswordReset(
  ctx: ServiceContext,
  input: { username: string; portalUrl: string },
): Promise<void> {
  const key = usernameKey(input.username);
  const contact = key ? await findContactByUsername(ctx, input.username.trim()) : undefined;
  if (!contact || !contact.isActive || !contact.email) return;
  const token = randomToken();
  const tokenId = await repo.insertToken(ctx.db, {
    accountId: ctx.account.id,
    contactId: contact.id,
    purpose: 'reset',
    tokenSha256: sha256(token),
    returnUrl: null,
    createdAt: at(ctx),
    expiresAt: at(ctx, RESET_TOKEN_MS),
    loginVersion: contact.loginVersion,
    portalEpoch: ctx.account.portalEpoch,
  });
  // Counted after the insert, among the tokens made before this one: requests in parallel cannot all pass.
  const earlier = await repo.countTokensBefore(
    ctx.db,
    ctx.account.id,
    contact.id,
    'reset',
    tokenId,
    at(ctx, -HOUR_MS),
  );
  if (earlier >= RESET_MAILS_PER_HOUR) {
    await repo.deleteToken(ctx.db, tokenId);
    ctx.log.info({ contactId: contact.id }, 'portal password reset: e-mail limit reached, none sent');
    return;
  }
  const seller = await documentSeller(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    const link = `${input.portalUrl}reset/${token}`;
    await queueMail(trx, ctx, ctx.account.id, {
      to: contact.email,
      subject: `Reset your ${ctx.account.name} customer portal password`,
      ...resetMail({
        name: contact.name,
        username: contact.username ?? '',
        account: ctx.account.name,
        link,
        seller,
      }),
    });
  });
  ctx.mailQueued();
}

/** The reset message, as every message to a customer: text and HTML, signed with the seller's details. */
function resetMail(m: {
  name: string;
  username: string;
  account: string;
  link: string;
  seller: DocumentSeller;
}): { text: string; html: string } {
  return messageBody({
    title: `Reset your ${m.account} customer portal password`,
    greeting: `Hello ${m.name},`,
    blocks: [
      {
        paragraph: `Someone asked to reset the password of ${m.username} for the ${m.account} customer portal.`,
      },
      { paragraph: 'To choose a new password, open this link within 30 minutes (it works once):' },
      { link: m.link, text: 'Choose a new password' },
      { paragraph: 'If you did not ask for this, ignore this message: your password stays as it is.' },
    ],
    signature: [mailSenderName(m.seller), ...sellerLines(m.seller)],
  });
}

/** A reset token that is still usable: unused, unexpired, its contact active. */
async function usableResetToken(ctx: ServiceContext, token: string) {
  if (token.length > 100) return undefined;
  const row = await repo.findToken(ctx.db, ctx.account.id, 'reset', sha256(token));
  if (!row || row.usedAt !== null || Date.parse(row.expiresAt) <= wallNow(ctx)) return undefined;
  const contact = await findContactCredentials(ctx, row.contactId);
  if (!contact?.isActive || !contact.passwordHash || !madeUnderCurrentLogin(ctx, row, contact))
    return undefined;
  return { row, contact: { ...contact, passwordHash: contact.passwordHash } };
}

export async function isResetTokenUsable(ctx: ServiceContext, token: string): Promise<boolean> {
  return (await usableResetToken(ctx, token)) !== undefined;
}

/**
 * Sets a new password with a reset token: the token is spent, every session of the contact ends, and the
 * username's failed sign-ins are forgotten (docs/design/portal.md, "Throttling": a reset releases a lock).
 * False when the token is not usable.
 */
export async function resetPassword(
  ctx: ServiceContext,
  token: string,
  newPassword: string,
): Promise<boolean> {
  const usable = await usableResetToken(ctx, token);
  if (!usable) return false;
  // Checked before the token is spent, so that a password the rule refuses leaves the link usable.
  await setContactPassword(ctx, usable.contact.id, usable.contact.passwordHash, newPassword);
  await repo.spendTokensOfContact(ctx.db, ctx.account.id, usable.contact.id, at(ctx));
  await repo.deleteSessionsOfContact(ctx.db, ctx.account.id, usable.contact.id);
  if (usable.contact.username) {
    await repo.clearFailuresOfUsername(ctx.db, ctx.account.id, usernameKey(usable.contact.username));
  }
  return true;
}
