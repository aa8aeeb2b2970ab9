import { inTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { isCommonPassword } from '../../security/commonPasswords.ts';
import { PORTAL_PASSWORD_MAX, passwordHashingOf, passwordPolicyProblem } from '../../security/passwords.ts';
import { emitEvent } from '../events/index.ts';
import * as repo from './contact.repository.ts';
import type { ContactCredentials } from './contact.repository.ts';

export type { ContactCredentials } from './contact.repository.ts';

/**
 * A username folded for case-insensitive sign-in, in the service rather than by the database: SQLite's lower()
 * folds ASCII only ("ZOË" would not find "Zoë"), PostgreSQL's folds every letter. Kept as username_key.
 */
export const usernameKey = (username: string): string => username.trim().normalize('NFC').toLowerCase();

export async function findContactByUsername(
  ctx: ServiceContext,
  username: string,
): Promise<ContactCredentials | undefined> {
  return repo.findCredentialsByUsername(ctx.db, ctx.account.id, username, usernameKey(username));
}

/** The customer's first active contact with a portal login (POST /v1/portal/sessions by CustomerID). */
export async function findFirstLoginOfCustomer(
  ctx: ServiceContext,
  customerId: number,
): Promise<ContactCredentials | undefined> {
  return repo.findFirstLoginOfCustomer(ctx.db, ctx.account.id, customerId);
}

export async function findContactCredentials(
  ctx: ServiceContext,
  contactId: number,
): Promise<ContactCredentials | undefined> {
  return repo.findCredentials(ctx.db, ctx.account.id, contactId);
}

/** The same password at a stronger cost (no event: the password did not change); false when it changed meanwhile. */
export function rehashContactPassword(
  ctx: ServiceContext,
  contactId: number,
  from: string,
  to: string,
): Promise<boolean> {
  return repo.replacePasswordHash(ctx.db, ctx.account.id, contactId, from, to);
}

/**
 * A contact's new password, chosen in the portal: the spec's rule (passwordPolicyProblem), at most
 * PORTAL_PASSWORD_MAX characters and not one of the most common passwords (the API keeps the spec's rule alone), hashed at the strong cost. `from` is the hash the contact proved it knew: a
 * password changed meanwhile is a conflict. Announced as customer_contact.password_changed, as an API change is.
 * Returns the new hash.
 */
export async function setContactPassword(
  ctx: ServiceContext,
  contactId: number,
  from: string,
  password: string,
): Promise<string> {
  const problem =
    passwordPolicyProblem(password) ??
    (password.length > PORTAL_PASSWORD_MAX
      ? `must have at most ${PORTAL_PASSWORD_MAX} characters`
      : undefined) ??
    (isCommonPassword(password) ? 'is one of the most common passwords: choose another' : undefined);
  if (problem) throw ValidationError.field('Password', problem);
  const hash = await passwordHashingOf(ctx).hash(password, 'strong');
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.replacePasswordHash(trx, ctx.account.id, contactId, from, hash))) {
      throw new ConflictError('password_changed', 'The password was changed meanwhile');
    }
    await repo.bumpLoginVersion(trx, ctx.account.id, contactId);
    await emitEvent(inTransaction(ctx, trx), 'customer_contact.password_changed', {
      type: 'customer_contact',
      id: contactId,
    });
  });
  return hash;
}
