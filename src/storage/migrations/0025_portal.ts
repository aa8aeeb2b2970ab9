import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // The customer portal (docs/design/portal.md): the account's address under /portal/{slug}/, unique across
  // accounts since it names the account; null until the account sets one.
  await db.schema.alterTable('accounts').addColumn('portal_slug', 'text').execute();
  await db.schema.createIndex('accounts_portal_slug').unique().on('accounts').column('portal_slug').execute();

  // Signed-in contacts (docs/design/portal.md, "Sessions and CSRF"). The cookie's id is never stored: only its
  // SHA-256. password_mark is a digest of the contact's password hash at sign-in: a password changed since ends
  // the session without customers knowing about the portal.
  await withId(db.schema.createTable('portal_sessions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('contact_id', 'bigint', (c) => c.notNull())
    .addColumn('id_sha256', 'text', (c) => c.notNull().unique())
    .addColumn('password_mark', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    // Where the merchant's sign-in link asked to send the customer back to; null for a password sign-in.
    .addColumn('return_url', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('last_seen_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('portal_sessions_contact')
    .on('portal_sessions')
    .columns(['account_id', 'contact_id'])
    .execute();

  // Single-use tokens a contact is sent (a password reset) or given (a sign-in link the merchant made), by their
  // SHA-256; used_at marks the one use.
  await withId(db.schema.createTable('portal_tokens'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('contact_id', 'bigint', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_sha256', 'text', (c) => c.notNull().unique())
    .addColumn('return_url', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('expires_at', t.instant, (c) => c.notNull())
    .addColumn('used_at', t.instant)
    .execute();

  // Failed sign-ins (docs/design/portal.md, "Throttling"), counted in the database so that processes sharing it
  // share the count; rows older than the window are pruned.
  await withId(db.schema.createTable('portal_sign_in_failures'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('username_key', 'text', (c) => c.notNull())
    .addColumn('client_address', 'text', (c) => c.notNull())
    .addColumn('failed_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('portal_sign_in_failures_username')
    .on('portal_sign_in_failures')
    .columns(['account_id', 'username_key', 'failed_at'])
    .execute();
  await db.schema
    .createIndex('portal_sign_in_failures_address')
    .on('portal_sign_in_failures')
    .columns(['client_address', 'failed_at'])
    .execute();
}
