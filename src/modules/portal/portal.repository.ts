import { sql } from 'kysely';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import {
  newPortalSessionToRow,
  newPortalTokenToRow,
  portalSessionFromRow,
  portalTokenFromRow,
} from './portal.mapper.ts';
import type {
  NewPortalSession,
  NewPortalToken,
  PortalSessionRecord,
  PortalToken,
  PortalTokenPurpose,
} from './portal.mapper.ts';

export async function insertSession(db: Db, session: NewPortalSession): Promise<number> {
  const inserted = await db
    .insertInto('portal_sessions')
    .values(newPortalSessionToRow(session))
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

export async function findSession(
  db: Db,
  accountId: number,
  idSha256: string,
): Promise<PortalSessionRecord | undefined> {
  const row = await db
    .selectFrom('portal_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id_sha256', '=', idSha256)
    .executeTakeFirst();
  return row && portalSessionFromRow(row);
}

export async function touchSession(db: Db, sessionId: number, at: string): Promise<void> {
  await db.updateTable('portal_sessions').set({ last_seen_at: at }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: Db, sessionId: number): Promise<void> {
  await db.deleteFrom('portal_sessions').where('id', '=', sessionId).execute();
}

export async function deleteSessionsOfContact(db: Db, accountId: number, contactId: number): Promise<void> {
  await db
    .deleteFrom('portal_sessions')
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .execute();
}

/** A rehash keeps the password: the contact's sessions made under the old hash stay valid under the new one. */
export async function remarkSessions(
  db: Db,
  accountId: number,
  contactId: number,
  from: string,
  to: string,
): Promise<void> {
  await db
    .updateTable('portal_sessions')
    .set({ password_mark: to })
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .where('password_mark', '=', from)
    .execute();
}

export async function insertToken(db: Db, token: NewPortalToken): Promise<number> {
  const inserted = await db
    .insertInto('portal_tokens')
    .values(newPortalTokenToRow(token))
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

export async function deleteToken(db: Db, tokenId: number): Promise<void> {
  await db.deleteFrom('portal_tokens').where('id', '=', tokenId).execute();
}

/** How many of the contact's tokens of this purpose were made since `since` before the token `beforeId`. */
export async function countTokensBefore(
  db: Db,
  accountId: number,
  contactId: number,
  purpose: PortalTokenPurpose,
  beforeId: number,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('portal_tokens')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .where('purpose', '=', purpose)
    .where('id', '<', beforeId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findToken(
  db: Db,
  accountId: number,
  purpose: PortalTokenPurpose,
  tokenSha256: string,
): Promise<PortalToken | undefined> {
  const row = await db
    .selectFrom('portal_tokens')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('purpose', '=', purpose)
    .where('token_sha256', '=', tokenSha256)
    .executeTakeFirst();
  return row && portalTokenFromRow(row);
}

/** Marks the token used; false when another request used it first (single use under concurrency). */
export async function useToken(db: Db, tokenId: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('portal_tokens')
    .set({ used_at: at })
    .where('id', '=', tokenId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Unused reset tokens of the contact are spent when its password changes: a stolen older mail opens nothing. */
export async function spendTokensOfContact(
  db: Db,
  accountId: number,
  contactId: number,
  at: string,
): Promise<void> {
  await db
    .updateTable('portal_tokens')
    .set({ used_at: at })
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .where('used_at', 'is', null)
    .execute();
}

/**
 * A sign-in attempt, written before its password is checked (docs/design/portal.md, "Throttling"): parallel
 * attempts each see the others' rows, so no more get through than the limits allow. A refused attempt's row stays
 * as its failure; a successful or paused one deletes it. Returns the row's id.
 */
export async function insertAttempt(
  db: Db,
  attempt: { accountId: number; usernameKey: string; clientAddress: string; failedAt: string },
  prunedBefore: string,
): Promise<number> {
  // The account's own rows only: its prune must not clear another account's pauses.
  await db
    .deleteFrom('portal_sign_in_failures')
    .where('account_id', '=', attempt.accountId)
    .where('failed_at', '<', prunedBefore)
    .execute();
  const inserted = await db
    .insertInto('portal_sign_in_failures')
    .values({
      account_id: attempt.accountId,
      username_key: attempt.usernameKey,
      client_address: attempt.clientAddress,
      failed_at: attempt.failedAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

export async function deleteAttempt(db: Db, attemptId: number): Promise<void> {
  await db.deleteFrom('portal_sign_in_failures').where('id', '=', attemptId).execute();
}

/**
 * The times of the account's failed attempts since `since` for a username, an address or both, newest first,
 * leaving out the attempt `exceptId` (the one asking).
 */
export async function failureTimes(
  db: Db,
  accountId: number,
  of: { usernameKey?: string; clientAddress?: string },
  since: string,
  exceptId: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('portal_sign_in_failures')
    .select('failed_at')
    .where('account_id', '=', accountId)
    .$if(of.usernameKey !== undefined, (qb) => qb.where('username_key', '=', of.usernameKey!))
    .$if(of.clientAddress !== undefined, (qb) => qb.where('client_address', '=', of.clientAddress!))
    .where('failed_at', '>', since)
    .where('id', '<>', exceptId)
    .orderBy('failed_at', 'desc')
    .limit(100)
    .execute();
  return rows.map((row) => row.failed_at);
}

/** A successful sign-in forgets the failures of its username from its address. */
export async function clearFailuresOfPair(
  db: Db,
  accountId: number,
  usernameKey: string,
  clientAddress: string,
): Promise<void> {
  await db
    .deleteFrom('portal_sign_in_failures')
    .where('account_id', '=', accountId)
    .where('username_key', '=', usernameKey)
    .where('client_address', '=', clientAddress)
    .execute();
}

/**
 * Records a form post of the address and says how many it has made since `since` before this one (counted after
 * the insert, so parallel posts cannot all pass); older rows of the address are pruned.
 */
export async function recordFormPost(
  db: Db,
  post: { accountId: number; clientAddress: string; postedAt: string },
  since: string,
): Promise<number> {
  await db
    .deleteFrom('portal_form_posts')
    .where('account_id', '=', post.accountId)
    .where('client_address', '=', post.clientAddress)
    .where('posted_at', '<', since)
    .execute();
  const inserted = await db
    .insertInto('portal_form_posts')
    .values({ account_id: post.accountId, client_address: post.clientAddress, posted_at: post.postedAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  const counted = await db
    .selectFrom('portal_form_posts')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('account_id', '=', post.accountId)
    .where('client_address', '=', post.clientAddress)
    .where('posted_at', '>=', since)
    .where('id', '<', inserted.id)
    .executeTakeFirstOrThrow();
  return Number(counted.count);
}

/** A password reset forgets every failure of the username (docs/design/portal.md, "Throttling"). */
export async function clearFailuresOfUsername(db: Db, accountId: number, usernameKey: string): Promise<void> {
  await db
    .deleteFrom('portal_sign_in_failures')
    .where('account_id', '=', accountId)
    .where('username_key', '=', usernameKey)
    .execute();
}

export type ContactAction = 'password_check' | 'email_change' | 'package_change' | 'top_up';

/**
 * Makes a contact's counted actions take turns until the transaction ends, so that the count read after an insert
 * holds every action counted before it (docs/portal.md, "Sign-in, sessions and passwords"). NOTE: without it, on
 * PostgreSQL a row takes its id before it commits: a request whose row had the lower id but committed later was
 * missed by the other's count, and a cap was passed by one. A transaction-scoped advisory lock on the pair (this
 * table, the contact); an SQLite transaction holds the database's write lock already (docs/architecture.md, "Locks").
 */
export async function lockContactActions(db: Db, accountId: number, contactId: number): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select pg_advisory_xact_lock(hashtext('portal_contact_actions'), hashtext(${`${accountId}:${contactId}`}))`.execute(
    db,
  );
}

/**
 * Records an action of a signed-in contact and says how many of that action, besides this one and since `since`,
 * the contact made, and the session (when given) made: counted after the insert, in the transaction of
 * lockContactActions, so parallel requests cannot all pass. Rows of the contact older than `pruneBefore` go.
 */
export async function recordContactAction(
  db: Db,
  acted: {
    accountId: number;
    contactId: number;
    sessionId: number | null;
    action: ContactAction;
    actedAt: string;
  },
  since: string,
  pruneBefore: string,
): Promise<{ id: number; byContact: number; bySession: number }> {
  await db
    .deleteFrom('portal_contact_actions')
    .where('account_id', '=', acted.accountId)
    .where('contact_id', '=', acted.contactId)
    .where('acted_at', '<', pruneBefore)
    .execute();
  const inserted = await db
    .insertInto('portal_contact_actions')
    .values({
      account_id: acted.accountId,
      contact_id: acted.contactId,
      session_id: acted.sessionId,
      action: acted.action,
      acted_at: acted.actedAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const earlier = await db
    .selectFrom('portal_contact_actions')
    .select('session_id')
    .where('account_id', '=', acted.accountId)
    .where('contact_id', '=', acted.contactId)
    .where('action', '=', acted.action)
    .where('acted_at', '>=', since)
    .where('id', '<>', inserted.id)
    .execute();
  return {
    id: Number(inserted.id),
    byContact: earlier.length,
    bySession:
      acted.sessionId === null ? 0 : earlier.filter((e) => Number(e.session_id) === acted.sessionId).length,
  };
}

/** Forgets an action that was refused before it was done: it did nothing, so it counts for nothing. */
export async function deleteContactAction(db: Db, id: number): Promise<void> {
  await db.deleteFrom('portal_contact_actions').where('id', '=', id).execute();
}

/** The invoice a credit form with this key made, if one did. */
export async function findTopUpOfForm(
  db: Db,
  accountId: number,
  formKey: string,
): Promise<{ walletId: number; invoiceId: number } | undefined> {
  const row = await db
    .selectFrom('portal_top_ups')
    .select(['wallet_id', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('form_key', '=', formKey)
    .executeTakeFirst();
  return row && { walletId: Number(row.wallet_id), invoiceId: Number(row.invoice_id) };
}

export async function insertTopUpOfForm(
  db: Db,
  topUp: { accountId: number; contactId: number; formKey: string; walletId: number; invoiceId: number },
  now: string,
): Promise<void> {
  await db
    .insertInto('portal_top_ups')
    .values({
      account_id: topUp.accountId,
      contact_id: topUp.contactId,
      form_key: topUp.formKey,
      wallet_id: topUp.walletId,
      invoice_id: topUp.invoiceId,
      created_at: now,
    })
    .execute();
}
