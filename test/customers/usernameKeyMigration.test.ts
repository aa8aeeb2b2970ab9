import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/storage/database.ts';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount, insertRow } from '../helpers/migrations.ts';

// Migration 0069 (docs/spec-decisions.md, "Customer contacts"): one username per account in any letter case, held
// by a unique index; contacts that already shared one keep it on the oldest, the others renamed with a note on their
// customer. Migrated only up to 0066, whatever comes after; rows written as 0066 left them, and read raw.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;

beforeAll(async () => {
  database = await databaseMigratedUpTo('0066_debicheck_batches');
});

afterAll(async () => {
  await database?.close();
});

const db = () => database.db;
const AT = '2026-03-01T00:00:00.000Z';

async function customer(accountId: number, name: string): Promise<number> {
  const enabled = await db()
    .selectFrom('account_currencies')
    .select('currency_code')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!enabled) {
    await db()
      .insertInto('account_currencies')
      .values({ account_id: accountId, currency_code: 'USD', created_at: AT })
      .execute();
  }
  return insertRow(db(), 'customers', {
    account_id: accountId,
    name,
    currency_code: 'USD',
    ...Object.fromEntries(
      ['is_company', 'is_suspended', 'is_waive_taxes', 'auto_send_invoice', 'auto_send_statement'].map(
        (c) => [c, false],
      ),
    ),
    is_active: true,
    created_at: AT,
    updated_at: AT,
  });
}

async function contact(accountId: number, customerId: number, username: string | null): Promise<number> {
  return insertRow(db(), 'customer_contacts', {
    account_id: accountId,
    customer_id: customerId,
    name: 'Contact',
    last_name: username ?? 'none',
    email: 'contact@example.com',
    username,
    username_key: username === null ? null : username.normalize('NFC').toLowerCase(),
    password_hash: null,
    is_active: true,
    created_at: AT,
  });
}

describe('migration 0069', () => {
  it('keeps a username shared in other letter cases on the oldest contact, renames the others with a note', async () => {
    const accountId = await insertAccount(db(), 'Before 0069');
    const other = await insertAccount(db(), 'Another account');
    const first = await customer(accountId, 'First');
    const second = await customer(accountId, 'Second');
    const bob = await contact(accountId, first, 'bob');
    const upper = await contact(accountId, second, 'Bob');
    const shout = await contact(accountId, first, 'BOB');
    // A username that the first rename would take: the rename makes itself longer.
    const taken = await contact(accountId, first, `bob-${shout}`);
    const alone = await contact(accountId, first, 'alice');
    const none = await contact(accountId, first, null);
    const elsewhere = await contact(other, await customer(other, 'Elsewhere'), 'BOB');

    expect(await migrateUpTo(database.storage.db, '0069_username_key_unique')).toContain(
      '0069_username_key_unique',
    );

    const usernames = Object.fromEntries(
      (await db().selectFrom('customer_contacts').select(['id', 'username', 'username_key']).execute()).map(
        (row) => [Number(row.id), [row.username, row.username_key]],
      ),
    );
    expect(usernames).toEqual({
      [bob]: ['bob', 'bob'],
      [upper]: [`Bob-${upper}`, `bob-${upper}`],
      [shout]: [`BOB-${shout}-${shout}`, `bob-${shout}-${shout}`],
      [taken]: [`bob-${shout}`, `bob-${shout}`],
      [alone]: ['alice', 'alice'],
      [none]: [null, null],
      [elsewhere]: ['BOB', 'bob'],
    });
    const notes = await db()
      .selectFrom('customer_notes')
      .select(['customer_id', 'note', 'note_type'])
      .orderBy('id')
      .execute();
    expect(notes.map((note) => [Number(note.customer_id), note.note, note.note_type])).toEqual([
      [
        second,
        `Portal username of contact ${upper} changed from "Bob" to "Bob-${upper}": contact ${bob} holds "bob", and ` +
          'usernames are one in any letter case. Tell the contact the new username; the password is unchanged.',
        'General',
      ],
      [
        first,
        `Portal username of contact ${shout} changed from "BOB" to "BOB-${shout}-${shout}": contact ${bob} holds ` +
          '"bob", and usernames are one in any letter case. Tell the contact the new username; the password is ' +
          'unchanged.',
        'General',
      ],
    ]);

    // The database now refuses a second holder of a folded username in the account, and lets contacts without one be.
    const refused = await contact(accountId, second, 'Alice').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isUniqueViolation(refused)).toBe(true);
    await contact(accountId, second, null);
  });
});
