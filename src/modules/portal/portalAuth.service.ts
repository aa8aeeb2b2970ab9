import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { addressKey } from '../../http/clientAddress.ts';
import { passwordHashingOf } from '../../security/passwords.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import type { DocumentSeller } from '../auth/index.ts';
import {
  findContactByUsername,
  findContactCredentials,
  findFirstLoginOfCustomer,
  getCustomer,
  rehashContactPassword,
  setContactPassword,
  usernameKey,
} from '../customers/index.ts';
import type { ContactCredentials } from '../customers/index.ts';
import { messageBody, queueMail } from '../mail/index.ts';
import * as repo from './portal.repository.ts';
import { HOUR_MS, at, madeUnderCurrentLogin, randomToken, sha256, wallNow } from './portalTokens.ts';
import type { PortalSessionRecord } from './portal.mapper.ts';
import { VerificationSlots } from './verificationSlots.ts';

/** docs/design/portal.md, "Sessions and CSRF". */
export const IDLE_TIMEOUT_MS = 30 * 60_000;
export const ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60_000;
/** The page warns this long before the session ends. */
export const EXPIRY_WARNING_MS = 2 * 60_000;
/**
 * docs/design/portal.md, "Throttling": a username pauses after 5 failures from one address in 15 minutes (so a
 * stranger elsewhere cannot keep its contact out), and after 50 from anywhere in an hour; an address after more
 * than 20 failures in 15 minutes across the account's usernames.
 */
export const USERNAME_FAILURES = 5;
export const LOCK_MS = 15 * 60_000;
export const USERNAME_HOURLY_FAILURES = 50;
export const ADDRESS_FAILURES = 20;
/** The coarse request limit: sign-in and reset forms an address may post to one portal in a minute. */
export const FORM_POSTS_PER_MINUTE = 30;
/** At most this many password verifications (128 MiB of scrypt each) run at once in a process. */
export const CONCURRENT_VERIFICATIONS = 5;
/**
 * When they are all running, at most this many of an account's checks wait in its queue; freed slots go round the
 * accounts waiting in turn (docs/portal.md, "Sign-in, sessions and passwords"; verificationSlots.ts).
 */
export const VERIFICATIONS_WAITING = 10;
/**
 * A signed-in contact's current-password checks (e-mail and password forms), right or wrong: at most this many per
 * session and per contact in PASSWORD_CHECK_WINDOW_MS (docs/portal.md, "Sign-in, sessions and passwords").
 */
export const PASSWORD_CHECKS_PER_SESSION = 5;
export const PASSWORD_CHECKS_PER_CONTACT = 10;
export const PASSWORD_CHECK_WINDOW_MS = 15 * 60_000;
/** E-mail address changes a contact may make in the portal in a day, each telling the old address. */
export const EMAIL_CHANGES_PER_DAY = 3;
/** Package changes a contact may confirm in the portal in a day, each issuing an invoice and its e-mail. */
export const PACKAGE_CHANGES_PER_DAY = 5;
/** Credit purchases a contact may make in the portal in a day, each issuing a top-up invoice (docs/portal.md). */
export const TOP_UPS_PER_DAY = 10;
const DAY_MS = 24 * 60 * 60_000;
/** What a sign-in refused for a full process is told to wait. */
export const BUSY_RETRY_SECONDS = 5;
/** A merchant's sign-in link lives 5 minutes (docs/portal.md, "Sign-in links"). */
export const SIGN_IN_LINK_MS = 5 * 60_000;

export interface PortalSession {
  id: number;
  contactId: number;
  customerId: number;
  contactName: string;
  csrfToken: string;
  returnUrl: string | null;
  /** When the session ends if nothing happens: the idle or the absolute limit, whichever comes first. */
  expiresAt: string;
}

/** A new session for the contact: the cookie's value, which the database keeps only as its SHA-256. */
async function startSession(
  ctx: ServiceContext,
  contact: ContactCredentials,
  passwordHash: string,
  returnUrl: string | null,
): Promise<string> {
  const id = randomToken();
  await repo.insertSession(ctx.db, {
    accountId: ctx.account.id,
    contactId: contact.id,
    idSha256: sha256(id),
    passwordMark: sha256(passwordHash),
    csrfToken: randomToken(),
    returnUrl,
    createdAt: at(ctx),
    lastSeenAt: at(ctx),
    loginVersion: contact.loginVersion,
    portalEpoch: ctx.account.portalEpoch,
  });
  return id;
}

function expiresAtOf(session: Pick<PortalSessionRecord, 'lastSeenAt' | 'createdAt'>): string {
  const idle = Date.parse(session.lastSeenAt) + IDLE_TIMEOUT_MS;
  const absolute = Date.parse(session.createdAt) + ABSOLUTE_TIMEOUT_MS;
  return new Date(Math.min(idle, absolute)).toISOString();
}

export type SessionLookup = { kind: 'none' } | { kind: 'ended' } | { kind: 'active'; session: PortalSession };

/**
 * The session a cookie names, checked on every request: within its idle and absolute limits, its contact still
 * there, active, with the password it signed in with (docs/design/portal.md, "Sign-in": deactivating, deleting or
 * changing the password ends every session of the contact). A session in use has its idle limit moved on.
 */
export async function currentSession(
  ctx: ServiceContext,
  cookie: string | undefined,
): Promise<SessionLookup> {
  if (!cookie || cookie.length > 100) return { kind: 'none' };
  const row = await repo.findSession(ctx.db, ctx.account.id, sha256(cookie));
  if (!row) return { kind: 'none' };
  const now = wallNow(ctx);
  const contact = await findContactCredentials(ctx, row.contactId);
  const valid =
    now < Date.parse(expiresAtOf(row)) &&
    contact !== undefined &&
    contact.isActive &&
    contact.passwordHash !== null &&
    sha256(contact.passwordHash) === row.passwordMark &&
    madeUnderCurrentLogin(ctx, row, contact);
  if (!valid || !contact) {
    await repo.deleteSession(ctx.db, row.id);
    return { kind: 'ended' };
  }
  await repo.touchSession(ctx.db, row.id, at(ctx));
  const touched = { ...row, lastSeenAt: at(ctx) };
  return {
    kind: 'active',
    session: {
      id: row.id,
      contactId: contact.id,
      customerId: contact.customerId,
      contactName: `${contact.name} ${contact.lastName}`.trim(),
      csrfToken: row.csrfToken,
      returnUrl: row.returnUrl,
      expiresAt: expiresAtOf(touched),
    },
  };
}

/**
 * Counts a sign-in or reset form posted from the address, an IPv6 client's /64 (docs/design/portal.md, "Throttling":
 * the coarse limit that comes first); the seconds to wait when the address is over FORM_POSTS_PER_MINUTE, else undefined.
 */
export async function formPostWait(ctx: ServiceContext, clientAddress: string): Promise<number | undefined> {
  const earlier = await repo.recordFormPost(
    ctx.db,
    { accountId: ctx.account.id, clientAddress: addressKey(clientAddress), postedAt: at(ctx) },
    at(ctx, -60_000),
  );
  return earlier >= FORM_POSTS_PER_MINUTE ? 60 : undefined;
}

export async function endSession(ctx: ServiceContext, sessionId: number): Promise<void> {
  await repo.deleteSession(ctx.db, sessionId);
}

export type SignInResult =
  | { kind: 'signed_in'; sessionId: string }
  | { kind: 'refused' }
  | { kind: 'locked'; until: string }
  | { kind: 'busy' };

/** A pause rule: `limit` failures within `windowMs` pause what they share until the oldest of them ages out. */
interface PauseRule {
  of: (key: string, address: string) => { usernameKey?: string; clientAddress?: string };
  limit: number;
  windowMs: number;
}

const PAUSE_RULES: PauseRule[] = [
  {
    of: (key, address) => ({ usernameKey: key, clientAddress: address }),
    limit: USERNAME_FAILURES,
    windowMs: LOCK_MS,
  },
  { of: (key) => ({ usernameKey: key }), limit: USERNAME_HOURLY_FAILURES, windowMs: HOUR_MS },
  { of: (_key, address) => ({ clientAddress: address }), limit: ADDRESS_FAILURES + 1, windowMs: LOCK_MS },
];

/**
 * Until when the attempt `attemptId` must wait: the latest end of the rules its username and address have reached
 * (counting every other attempt, and this one's own failure when `countOwn`); undefined when none.
 */
async function pausedUntil(
  ctx: ServiceContext,
  attempt: { id: number; key: string; address: string; countOwn: boolean },
): Promise<string | undefined> {
  const ends: number[] = [];
  for (const rule of PAUSE_RULES) {
    const others = await repo.failureTimes(
      ctx.db,
      ctx.account.id,
      rule.of(attempt.key, attempt.address),
      at(ctx, -rule.windowMs),
      attempt.id,
    );
    const times = attempt.countOwn ? [at(ctx), ...others] : others;
    // The pause lasts until fewer than `limit` failures are left in the window.
    if (times.length >= rule.limit) ends.push(Date.parse(times[rule.limit - 1]!) + rule.windowMs);
  }
  return ends.length ? new Date(Math.max(...ends)).toISOString() : undefined;
}

/**
 * The password-check slots of one service, which the composition root makes and hands to the portal's pages
 * (PortalDeps): two services in one process (tests start many) each have their own.
 */
export function passwordCheckSlots(): VerificationSlots {
  return new VerificationSlots(CONCURRENT_VERIFICATIONS, VERIFICATIONS_WAITING);
}

/**
 * A password check that may run: at most CONCURRENT_VERIFICATIONS at once in the service's `slots`, each costing
 * 128 MiB (at the default PASSWORD_COST) and a core for a fraction of a second; when they are all running it waits
 * for its account's turn (a few of an account's checks wait, in turn with other accounts'); 'busy' beyond that,
 * rather than queueing guesses.
 */
async function verifyInTurn(
  ctx: ServiceContext,
  slots: VerificationSlots,
  password: string,
  stored: string,
): Promise<boolean | 'busy'> {
  const release = await slots.acquire(ctx.account.id);
  if (release === 'busy') return 'busy';
  try {
    return await passwordHashingOf(ctx).verifyAtPortalCost(password, stored);
  } finally {
    release();
  }
}

/**
 * Records an action of the signed-in contact (repo.recordContactAction) and counts those of its kind in the last
 * `windowMs`, in one transaction under the contact's turn (repo.lockContactActions), so that a cap holds under
 * parallel requests on PostgreSQL too; the contact's rows older than a day, the longest window, go.
 */
const countContactAction = (
  ctx: ServiceContext,
  session: PortalSession,
  action: repo.ContactAction,
  windowMs: number,
) =>
  withTransaction(ctx, async (tctx) => {
    await repo.lockContactActions(tctx.db, tctx.account.id, session.contactId);
    return repo.recordContactAction(
      tctx.db,
      {
        accountId: tctx.account.id,
        contactId: session.contactId,
        sessionId: session.id,
        action,
        actedAt: at(tctx),
      },
      at(tctx, -windowMs),
      at(tctx, -DAY_MS),
    );
  });

type GuardedCheck =
  | { kind: 'right'; attemptId: number }
  | { kind: 'wrong'; until?: string }
  | { kind: 'locked'; until: string }
  | { kind: 'busy' }
  | { kind: 'too_many_checks'; until: string };

/**
 * Counts a signed-in contact's password check (docs/portal.md, "Sign-in, sessions and passwords"): right or wrong,
 * each costs a verification, so each counts, per session and per contact. Over either limit the check is not made
 * and not counted; the answer says until when to wait (the window's length, at most).
 */
async function countPasswordCheck(
  ctx: ServiceContext,
  session: PortalSession,
): Promise<{ kind: 'counted'; forget(): Promise<void> } | { kind: 'too_many_checks'; until: string }> {
  const counted = await countContactAction(ctx, session, 'password_check', PASSWORD_CHECK_WINDOW_MS);
  const forget = () => repo.deleteContactAction(ctx.db, counted.id);
  if (counted.bySession < PASSWORD_CHECKS_PER_SESSION && counted.byContact < PASSWORD_CHECKS_PER_CONTACT) {
    return { kind: 'counted', forget };
  }
  await forget();
  return { kind: 'too_many_checks', until: at(ctx, PASSWORD_CHECK_WINDOW_MS) };
}

/**
 * One guarded password check, for sign-in and for the current password of the change form (docs/design/portal.md,
 * "Throttling"). The attempt is written first, then the pauses are counted with it in place, so parallel attempts
 * cannot all pass the count before the first failure lands; a paused or busy attempt deletes its row (it checked
 * nothing), a wrong one keeps it as its failure.
 */
async function guardedCheck(
  ctx: ServiceContext,
  slots: VerificationSlots,
  input: { key: string; clientAddress: string; password: string; stored: string; session?: PortalSession },
): Promise<GuardedCheck> {
  // Counted by addressKey: an IPv6 client by its /64, which one subscriber routinely holds whole.
  const address = addressKey(input.clientAddress);
  const attemptId = await repo.insertAttempt(
    ctx.db,
    {
      accountId: ctx.account.id,
      usernameKey: input.key,
      clientAddress: address,
      failedAt: at(ctx),
    },
    at(ctx, -24 * 60 * 60_000),
  );
  const attempt = { id: attemptId, key: input.key, address, countOwn: false };
  const paused = await pausedUntil(ctx, attempt);
  if (paused) {
    await repo.deleteAttempt(ctx.db, attemptId);
    return { kind: 'locked', until: paused };
  }
  let forgetCheck = async () => {};
  if (input.session) {
    const counted = await countPasswordCheck(ctx, input.session);
    if (counted.kind === 'too_many_checks') {
      await repo.deleteAttempt(ctx.db, attemptId);
      return counted;
    }
    forgetCheck = counted.forget;
  }
  const matches = await verifyInTurn(ctx, slots, input.password, input.stored);
  if (matches === 'busy') {
    // Nothing was checked, so nothing counts: a busy process must not use up a contact's checks.
    await repo.deleteAttempt(ctx.db, attemptId);
    await forgetCheck();
    return { kind: 'busy' };
  }
  if (!matches) return { kind: 'wrong', until: await pausedUntil(ctx, { ...attempt, countOwn: true }) };
  return { kind: 'right', attemptId };
}

/**
 * A sign-in by username and password (docs/design/portal.md, "Sign-in" and "Throttling"). One password
 * verification runs whether or not the user exists (against a dummy hash), and every refusal is the same one; a
 * paused username or address says until when. A hash older than the portal's cost is replaced by a stronger one
 * of the same password.
 */
export async function signIn(
  ctx: ServiceContext,
  slots: VerificationSlots,
  input: { username: string; password: string; clientAddress: string },
): Promise<SignInResult> {
  const key = usernameKey(input.username);
  const contact = key ? await findContactByUsername(ctx, input.username.trim()) : undefined;
  const hashing = passwordHashingOf(ctx);
  const stored = contact?.passwordHash ?? (await hashing.dummyHash());
  const check = await guardedCheck(ctx, slots, {
    key,
    clientAddress: input.clientAddress,
    password: input.password,
    stored,
  });
  if (check.kind === 'locked' || check.kind === 'busy') return check;
  if (check.kind === 'too_many_checks') throw new Error('a sign-in is not a signed-in check');
  if (check.kind === 'wrong' || !contact || !contact.isActive || contact.passwordHash === null) {
    const until = check.kind === 'wrong' ? check.until : undefined;
    return until ? { kind: 'locked', until } : { kind: 'refused' };
  }
  await repo.deleteAttempt(ctx.db, check.attemptId);
  await repo.clearFailuresOfPair(ctx.db, ctx.account.id, key, addressKey(input.clientAddress));
  let hash = contact.passwordHash;
  if (hashing.needsStrongerHash(hash)) {
    const stronger = await hashing.hash(input.password, 'strong');
    if (await rehashContactPassword(ctx, contact.id, hash, stronger)) {
      await repo.remarkSessions(ctx.db, ctx.account.id, contact.id, sha256(hash), sha256(stronger));
      hash = stronger;
    }
  }
  return { kind: 'signed_in', sessionId: await startSession(ctx, contact, hash, null) };
}

/**
 * Changes the signed-in contact's password after checking the current one, guarded as a sign-in is (a wrong current
 * password is a failed sign-in of the contact's username from that address). Every session of the contact ends
 * (the new hash no longer matches theirs); the caller's continues under a new id, which this returns.
 */
export async function changePassword(
  ctx: ServiceContext,
  slots: VerificationSlots,
  session: PortalSession,
  input: { currentPassword: string; newPassword: string; clientAddress: string },
): Promise<{ kind: 'changed'; sessionId: string } | RefusedCheck> {
  const checked = await checkCurrentPassword(ctx, slots, session, input);
  if (checked.kind !== 'right') return checked;
  const contact = checked.contact;
  const hash = await setContactPassword(ctx, contact.id, contact.passwordHash, input.newPassword);
  await repo.deleteSessionsOfContact(ctx.db, ctx.account.id, contact.id);
  await repo.spendTokensOfContact(ctx.db, ctx.account.id, contact.id, at(ctx));
  // Read again: the new password moved the contact's login version on.
  const changed = await findContactCredentials(ctx, contact.id);
  if (!changed) throw new NotFoundError('Customer contact', contact.id);
  return { kind: 'changed', sessionId: await startSession(ctx, changed, hash, session.returnUrl) };
}

/**
 * Checks the signed-in contact's current password before a change that could hand the login to someone else (its
 * e-mail address: docs/portal.md, "What customers may change"), guarded as a sign-in is: a wrong password is a failed
 * sign-in of the contact's username from that address, and counts towards its pauses.
 */
export async function checkCurrentPassword(
  ctx: ServiceContext,
  slots: VerificationSlots,
  session: PortalSession,
  input: { currentPassword: string; clientAddress: string },
): Promise<{ kind: 'right'; contact: ContactCredentials & { passwordHash: string } } | RefusedCheck> {
  const contact = await findContactCredentials(ctx, session.contactId);
  if (!contact?.passwordHash) throw new NotFoundError('Customer contact', session.contactId);
  const check = await guardedCheck(ctx, slots, {
    key: usernameKey(contact.username ?? ''),
    clientAddress: input.clientAddress,
    password: input.currentPassword,
    stored: contact.passwordHash,
    session,
  });
  if (check.kind === 'locked' || check.kind === 'busy' || check.kind === 'too_many_checks') return check;
  if (check.kind === 'wrong') {
    if (check.until) return { kind: 'locked', until: check.until };
    throw ValidationError.field('CurrentPassword', 'is not your current password');
  }
  await repo.deleteAttempt(ctx.db, check.attemptId);
  return { kind: 'right', contact: { ...contact, passwordHash: contact.passwordHash } };
}

/** A signed-in password check that was not made: paused, the process busy, or too many checks of the contact. */
export type RefusedCheck =
  { kind: 'locked'; until: string } | { kind: 'busy' } | { kind: 'too_many_checks'; until: string };

/**
 * The checks before the signed-in contact changes its e-mail address: fewer than EMAIL_CHANGES_PER_DAY changes in the
 * last day (each one tells the old address, so a contact looping changes would have the service mail any address it
 * chose), then its current password (checkCurrentPassword). The change is counted here, before it is made, so that
 * parallel forms cannot all pass; a change refused by the password is not counted, and `forget` uncounts one the
 * form then refuses for another field.
 */
export async function checkEmailChange(
  ctx: ServiceContext,
  slots: VerificationSlots,
  session: PortalSession,
  input: { currentPassword: string; clientAddress: string },
): Promise<{ kind: 'right'; forget(): Promise<void> } | RefusedCheck | { kind: 'too_many_changes' }> {
  const counted = await countContactAction(ctx, session, 'email_change', DAY_MS);
  if (counted.byContact >= EMAIL_CHANGES_PER_DAY) {
    await repo.deleteContactAction(ctx.db, counted.id);
    return { kind: 'too_many_changes' };
  }
  let checked: Awaited<ReturnType<typeof checkCurrentPassword>> | undefined;
  try {
    checked = await checkCurrentPassword(ctx, slots, session, input);
    return checked.kind === 'right'
      ? { kind: 'right', forget: () => repo.deleteContactAction(ctx.db, counted.id) }
      : checked;
  } finally {
    if (checked?.kind !== 'right') await repo.deleteContactAction(ctx.db, counted.id);
  }
}

/**
 * Counts a package change the signed-in contact confirms, before it is made (docs/portal.md, "What customers may
 * change"): fewer than PACKAGE_CHANGES_PER_DAY in the last day, since each issues an invoice, its events and its
 * e-mail. Counted first, so that parallel forms cannot all pass; `forget` uncounts a change that was not made.
 */
export async function countPackageChange(
  ctx: ServiceContext,
  session: PortalSession,
): Promise<{ kind: 'counted'; forget(): Promise<void> } | { kind: 'too_many_changes' }> {
  const counted = await countContactAction(ctx, session, 'package_change', DAY_MS);
  const forget = () => repo.deleteContactAction(ctx.db, counted.id);
  if (counted.byContact < PACKAGE_CHANGES_PER_DAY) return { kind: 'counted', forget };
  await forget();
  return { kind: 'too_many_changes' };
}

/**
 * Counts a purchase of prepaid credit the signed-in contact makes, before its invoice is made (docs/portal.md,
 * "Prepaid credit"): fewer than TOP_UPS_PER_DAY in the last day, so that nobody signed in can fill the customer's
 * invoices. Counted first, as package changes are; `forget` uncounts a purchase that made no invoice.
 */
export async function countTopUp(
  ctx: ServiceContext,
  session: PortalSession,
): Promise<{ kind: 'counted'; forget(): Promise<void> } | { kind: 'too_many_top_ups' }> {
  const counted = await countContactAction(ctx, session, 'top_up', DAY_MS);
  const forget = () => repo.deleteContactAction(ctx.db, counted.id);
  if (counted.byContact < TOP_UPS_PER_DAY) return { kind: 'counted', forget };
  await forget();
  return { kind: 'too_many_top_ups' };
}

/**
 * After the signed-in contact's e-mail address changed (checkEmailChange first): the old address is told, so
 * that a stolen session cannot move the login away unseen, and the caller's session, ended by the change (the
 * contact's login moved on), continues under a new id, which this returns.
 */
export async function emailChanged(
  ctx: ServiceContext,
  session: PortalSession,
  change: { from: string; to: string },
): Promise<string> {
  const contact = await findContactCredentials(ctx, session.contactId);
  if (!contact?.passwordHash) throw new NotFoundError('Customer contact', session.contactId);
  const seller = await documentSeller(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await queueMail(trx, ctx, ctx.account.id, {
      to: change.from,
      subject: `Your ${ctx.account.name} customer portal e-mail address was changed`,
      ...emailChangedMail({ name: contact.name, account: ctx.account.name, to: change.to, seller }),
    });
  });
  ctx.mailQueued();
  return startSession(ctx, contact, contact.passwordHash, session.returnUrl);
}

/** The notice to the old address, signed with the seller's details as every message to a customer. */
function emailChangedMail(m: { name: string; account: string; to: string; seller: DocumentSeller }): {
  text: string;
  html: string;
} {
  return messageBody({
    title: `Your ${m.account} customer portal e-mail address was changed`,
    greeting: `Hello ${m.name},`,
    blocks: [
      { paragraph: `The e-mail address of your ${m.account} customer portal login is now ${m.to}.` },
      { paragraph: `If you did not change it, contact ${m.account} at once.` },
    ],
    signature: [mailSenderName(m.seller), ...sellerLines(m.seller)],
  });
}

/**
 * A sign-in link for a customer's contact, made by the merchant's server (POST /v1/portal/sessions): single use,
 * SIGN_IN_LINK_MS long. With only a customer, its first active contact with a login.
 */
export async function createSignInLink(
  ctx: ServiceContext,
  input: { customerId?: number; contactId?: number; returnUrl?: string | null },
): Promise<{ token: string; expiresAt: string }> {
  if (input.customerId === undefined && input.contactId === undefined) {
    throw ValidationError.field('ContactID', 'give ContactID or CustomerID');
  }
  let contact: ContactCredentials | undefined;
  if (input.contactId !== undefined) {
    contact = await findContactCredentials(ctx, input.contactId);
    if (!contact) throw new NotFoundError('Customer contact', input.contactId);
    if (input.customerId !== undefined && contact.customerId !== input.customerId) {
      throw ValidationError.field('ContactID', `is not a contact of customer ${input.customerId}`);
    }
  } else {
    const customerId = input.customerId!;
    await getCustomer(ctx, customerId);
    contact = await findFirstLoginOfCustomer(ctx, customerId);
    if (!contact) throw ValidationError.field('CustomerID', 'has no active contact with a portal login');
  }
  if (!contact.isActive || !contact.passwordHash) {
    throw ValidationError.field('ContactID', 'is not active or has no portal login');
  }
  const token = randomToken();
  const expiresAt = at(ctx, SIGN_IN_LINK_MS);
  await repo.insertToken(ctx.db, {
    accountId: ctx.account.id,
    contactId: contact.id,
    purpose: 'sign_in',
    tokenSha256: sha256(token),
    returnUrl: input.returnUrl ?? null,
    createdAt: at(ctx),
    expiresAt,
    loginVersion: contact.loginVersion,
    portalEpoch: ctx.account.portalEpoch,
  });
  return { token, expiresAt };
}

/** Spends a sign-in link and starts its session; undefined when the link is unknown, used, expired or its contact can no longer sign in. */
export async function signInWithLink(ctx: ServiceContext, token: string): Promise<string | undefined> {
  if (token.length > 100) return undefined;
  const row = await repo.findToken(ctx.db, ctx.account.id, 'sign_in', sha256(token));
  if (!row || row.usedAt !== null || Date.parse(row.expiresAt) <= wallNow(ctx)) return undefined;
  if (!(await repo.useToken(ctx.db, row.id, at(ctx)))) return undefined;
  const contact = await findContactCredentials(ctx, row.contactId);
  if (!contact?.isActive || !contact.passwordHash || !madeUnderCurrentLogin(ctx, row, contact))
    return undefined;
  return startSession(ctx, contact, contact.passwordHash, row.returnUrl);
}
