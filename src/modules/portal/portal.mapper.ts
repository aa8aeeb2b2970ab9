import type { Insertable, Selectable } from 'kysely';
import type { PortalSessionsTable, PortalTokensTable } from './tables.ts';

/** A signed-in contact's session as stored: the cookie's id and the password only by their SHA-256. */
export interface PortalSessionRecord {
  id: number;
  accountId: number;
  contactId: number;
  idSha256: string;
  /** SHA-256 of the contact's password hash at sign-in: a changed password ends the session. */
  passwordMark: string;
  csrfToken: string;
  returnUrl: string | null;
  createdAt: string;
  lastSeenAt: string;
  /** The contact's login version and the account's portal epoch at sign-in (portalTokens.ts). */
  loginVersion: number;
  portalEpoch: number;
}

export type NewPortalSession = Omit<PortalSessionRecord, 'id'>;

export type PortalTokenPurpose = 'reset' | 'sign_in';

/** A single-use token (a password reset or a sign-in link), stored only by its SHA-256. */
export interface PortalToken {
  id: number;
  accountId: number;
  contactId: number;
  purpose: PortalTokenPurpose;
  tokenSha256: string;
  returnUrl: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  loginVersion: number;
  portalEpoch: number;
}

export type NewPortalToken = Omit<PortalToken, 'id' | 'usedAt'>;

export function portalSessionFromRow(row: Selectable<PortalSessionsTable>): PortalSessionRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    contactId: row.contact_id,
    idSha256: row.id_sha256,
    passwordMark: row.password_mark,
    csrfToken: row.csrf_token,
    returnUrl: row.return_url,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    loginVersion: Number(row.login_version),
    portalEpoch: Number(row.portal_epoch),
  };
}

export function newPortalSessionToRow(session: NewPortalSession): Insertable<PortalSessionsTable> {
  return {
    account_id: session.accountId,
    contact_id: session.contactId,
    id_sha256: session.idSha256,
    password_mark: session.passwordMark,
    csrf_token: session.csrfToken,
    return_url: session.returnUrl,
    created_at: session.createdAt,
    last_seen_at: session.lastSeenAt,
    login_version: session.loginVersion,
    portal_epoch: session.portalEpoch,
  };
}

export function portalTokenFromRow(row: Selectable<PortalTokensTable>): PortalToken {
  return {
    id: row.id,
    accountId: row.account_id,
    contactId: row.contact_id,
    purpose: row.purpose as PortalTokenPurpose,
    tokenSha256: row.token_sha256,
    returnUrl: row.return_url,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    loginVersion: Number(row.login_version),
    portalEpoch: Number(row.portal_epoch),
  };
}

export function newPortalTokenToRow(token: NewPortalToken): Insertable<PortalTokensTable> {
  return {
    account_id: token.accountId,
    contact_id: token.contactId,
    purpose: token.purpose,
    token_sha256: token.tokenSha256,
    return_url: token.returnUrl,
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    login_version: token.loginVersion,
    portal_epoch: token.portalEpoch,
  };
}
