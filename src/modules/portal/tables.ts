import type { Instant, Id, Defaulted } from '../../storage/columnTypes.ts';

// The tables the portal module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/** Signed-in portal contacts (migration 0025; see schema.ts). */
export interface PortalSessionsTable {
  id: Id;
  account_id: number;
  contact_id: number;
  /** SHA-256 (hex) of the cookie's session id; the id itself is never stored. */
  id_sha256: string;
  /** SHA-256 (hex) of the contact's password hash at sign-in: a changed password ends the session. */
  password_mark: string;
  /** The session's CSRF token, which every form posts back. */
  csrf_token: string;
  return_url: string | null;
  created_at: Instant;
  last_seen_at: Instant;
  /** The contact's login_version and the account's portal_epoch at sign-in: either moved on ends it (0027). */
  login_version: Defaulted<number>;
  portal_epoch: Defaulted<number>;
}

/** Single-use portal tokens: password resets and merchant-made sign-in links (migration 0025). */
export interface PortalTokensTable {
  id: Id;
  account_id: number;
  contact_id: number;
  /** reset or sign_in. */
  purpose: string;
  token_sha256: string;
  return_url: string | null;
  created_at: Instant;
  expires_at: Instant;
  used_at: Instant | null;
  /** As on sessions: a token made before a login or slug change opens nothing (0027). */
  login_version: Defaulted<number>;
  portal_epoch: Defaulted<number>;
}

/** Failed portal sign-ins by username and by client address (migration 0025). */
export interface PortalSignInFailuresTable {
  id: Id;
  account_id: number;
  /** The username as typed, lowercased. */
  username_key: string;
  client_address: string;
  failed_at: Instant;
}

/** A signed-in contact's password checks, e-mail changes and package changes, for their limits (migration 0032). */
export interface PortalContactActionsTable {
  id: Id;
  account_id: number;
  contact_id: number;
  session_id: number | null;
  action: 'password_check' | 'email_change' | 'package_change' | 'top_up';
  acted_at: Instant;
}

/** Sign-in and reset forms posted, for the per-address request limit (migration 0027). */
export interface PortalFormPostsTable {
  id: Id;
  account_id: number;
  client_address: string;
  posted_at: Instant;
}

/** Prepaid credit bought with the credit form, by the form's key: a form sent twice is one invoice (0051). */
export interface PortalTopUpsTable {
  id: Id;
  account_id: number;
  contact_id: number;
  /** SHA-256 of the session's form token, the wallet, the amount and the page's own token (creditPage.ts). */
  form_key: string;
  wallet_id: number;
  /** The top-up invoice the form made (the credits module's createTopUp). */
  invoice_id: number;
  created_at: Instant;
}

/** The portal module's tables, as Kysely's Database type holds them. */
export interface PortalTables {
  portal_sessions: PortalSessionsTable;
  portal_tokens: PortalTokensTable;
  portal_sign_in_failures: PortalSignInFailuresTable;
  portal_contact_actions: PortalContactActionsTable;
  portal_form_posts: PortalFormPostsTable;
  portal_top_ups: PortalTopUpsTable;
}
