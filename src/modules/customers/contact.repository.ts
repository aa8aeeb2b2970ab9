import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { CustomerContactsTable } from './tables.ts';
import type { Contact } from './customer.ts';

type ContactRow = Omit<
  Selectable<CustomerContactsTable>,
  'password_hash' | 'account_id' | 'username_key' | 'login_version'
>;

// The password hash is written, and read only where a password is checked: never by these queries.
const CONTACT_COLUMNS = [
  'id',
  'customer_id',
  'name',
  'last_name',
  'email',
  'cell',
  'username',
  'is_active',
  'created_at',
] as const;

function contactFromRow(row: ContactRow): Contact {
  return {
    id: row.id,
    customerId: row.customer_id,
    name: row.name,
    lastName: row.last_name,
    email: row.email,
    cell: row.cell,
    username: row.username,
    isActive: Boolean(row.is_active),
    createdAt: row.created_at,
  };
}

export async function findContact(
  db: Db,
  accountId: number,
  contactId: number,
): Promise<Contact | undefined> {
  const row = await db
    .selectFrom('customer_contacts')
    .select(CONTACT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .executeTakeFirst();
  return row && contactFromRow(row);
}

export async function findContacts(
  db: Db,
  accountId: number,
  contactIds: readonly number[],
): Promise<Contact[]> {
  if (contactIds.length === 0) return [];
  const rows = await db
    .selectFrom('customer_contacts')
    .select(CONTACT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...contactIds])
    .orderBy('id')
    .execute();
  return rows.map(contactFromRow);
}

export async function contactIdsOfCustomer(db: Db, accountId: number, customerId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('customer_contacts')
    .select('id')
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

export async function listContacts(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<Contact[]> {
  const rows = await db
    .selectFrom('customer_contacts')
    .select(CONTACT_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(customerId !== undefined, (qb) => qb.where('customer_id', '=', customerId!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(contactFromRow);
}

export async function contactHasPassword(db: Db, accountId: number, contactId: number): Promise<boolean> {
  const row = await db
    .selectFrom('customer_contacts')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .where('password_hash', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The contacts holding a username of this folded key (usernameKey): sign-in ignores case, so "Bob" and "bob" are one
 * login. Several only where they were made before that was refused.
 */
export async function findContactIdsByUsernameKey(db: Db, accountId: number, key: string): Promise<number[]> {
  const rows = await db
    .selectFrom('customer_contacts')
    .select('id')
    .where('account_id', '=', accountId)
    .where('username_key', '=', key)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

export async function insertContact(db: Db, row: Insertable<CustomerContactsTable>): Promise<number> {
  const inserted = await db
    .insertInto('customer_contacts')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateContact(
  db: Db,
  accountId: number,
  contactId: number,
  changes: Updateable<Omit<CustomerContactsTable, 'id' | 'account_id' | 'created_at'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('customer_contacts')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteContact(db: Db, accountId: number, contactId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('customer_contacts')
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** What a portal sign-in checks: the only reads of a password hash. */
interface ContactCredentialsRow {
  id: number;
  customer_id: number;
  name: string;
  last_name: string;
  email: string;
  username: string | null;
  password_hash: string | null;
  is_active: boolean | number;
  login_version: number;
}

/**
 * A contact's login as the customer portal checks it (docs/design/portal.md, "Sign-in"). The portal sits above
 * this module, so it asks here; the password hash leaves this module only in this shape.
 */
export interface ContactCredentials {
  id: number;
  customerId: number;
  name: string;
  lastName: string;
  email: string;
  username: string | null;
  passwordHash: string | null;
  isActive: boolean;
  /** Moves on when the password or e-mail changes or the contact is deactivated (migration 0027). */
  loginVersion: number;
}

function credentialsFromRow(row: ContactCredentialsRow): ContactCredentials {
  return {
    id: row.id,
    customerId: row.customer_id,
    name: row.name,
    lastName: row.last_name,
    email: row.email,
    username: row.username,
    passwordHash: row.password_hash,
    isActive: Boolean(row.is_active),
    loginVersion: Number(row.login_version),
  };
}

const CREDENTIAL_COLUMNS = [
  'id',
  'customer_id',
  'name',
  'last_name',
  'email',
  'username',
  'password_hash',
  'is_active',
  'login_version',
] as const;

/**
 * The contact a portal user name names, case-insensitively by its folded key (docs/design/portal.md, "Sign-in");
 * usernames are unique in the account as written, so an exact match wins over one differing in case.
 */
export async function findCredentialsByUsername(
  db: Db,
  accountId: number,
  username: string,
  key: string,
): Promise<ContactCredentials | undefined> {
  const rows = await db
    .selectFrom('customer_contacts')
    .select(CREDENTIAL_COLUMNS)
    .where('account_id', '=', accountId)
    .where('username_key', '=', key)
    .orderBy('id')
    .limit(10)
    .execute();
  const row = rows.find((candidate) => candidate.username === username) ?? rows[0];
  return row && credentialsFromRow(row);
}

/** The customer's first active contact with a password, by id, however many contacts it has. */
export async function findFirstLoginOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<ContactCredentials | undefined> {
  const row = await db
    .selectFrom('customer_contacts')
    .select(CREDENTIAL_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('is_active', '=', true)
    .where('password_hash', 'is not', null)
    .orderBy('id')
    .executeTakeFirst();
  return row && credentialsFromRow(row);
}

export async function bumpLoginVersion(db: Db, accountId: number, contactId: number): Promise<void> {
  await db
    .updateTable('customer_contacts')
    .set((eb) => ({ login_version: eb('login_version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .execute();
}

export async function findCredentials(
  db: Db,
  accountId: number,
  contactId: number,
): Promise<ContactCredentials | undefined> {
  const row = await db
    .selectFrom('customer_contacts')
    .select(CREDENTIAL_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .executeTakeFirst();
  return row && credentialsFromRow(row);
}

/** Replaces the hash only if it is still `expected`: a change made meanwhile wins. */
export async function replacePasswordHash(
  db: Db,
  accountId: number,
  contactId: number,
  expected: string,
  hash: string,
): Promise<boolean> {
  const result = await db
    .updateTable('customer_contacts')
    .set({ password_hash: hash })
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .where('password_hash', '=', expected)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
