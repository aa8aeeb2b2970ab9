import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount } from '../helpers/migrations.ts';

// Migration 0027 (docs/spec-decisions.md, "Customer portal"): contacts made before it get the folded username the
// portal signs in by, also for letters beyond ASCII, and every session, token and account starts at version 0.
// Migrated only up to 0027, whatever comes after it; rows written as 0026 left them.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
let db: Kysely<any>;

beforeAll(async () => {
  database = await databaseMigratedUpTo('0026_portal_self_service');
  db = database.db;
});

afterAll(async () => {
  await database?.close();
});

describe('migration 0027', () => {
  it('folds the usernames of contacts made before it, beyond ASCII too', async () => {
    const accountId = await insertAccount(db, 'Before 0027');
    await db
      .insertInto('account_currencies')
      .values({ account_id: accountId, currency_code: 'USD', created_at: '2026-03-01T00:00:00.000Z' })
      .execute();
    const customer = await db
      .insertInto('customers')
      .values({
        account_id: accountId,
        name: 'Zoë',
        currency_code: 'USD',
        is_company: false,
        is_active: true,
        is_suspended: false,
        is_waive_taxes: false,
        auto_send_invoice: false,
        auto_send_statement: false,
        created_at: '2026-03-01T00:00:00.000Z',
        updated_at: '2026-03-01T00:00:00.000Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const contact = (username: string | null) => ({
      account_id: accountId,
      customer_id: customer.id,
      name: 'Zoë',
      last_name: 'Ärnlund',
      email: 'zoe@example.com',
      username,
      is_active: true,
      created_at: '2026-03-01T00:00:00.000Z',
    });
    await db
      .insertInto('customer_contacts')
      .values([contact('ZOË.Ärnlund'), contact('Plain.Name'), contact(null)])
      .execute();

    expect(await migrateUpTo(database.storage.db, '0027_portal_revocation')).toEqual([
      '0027_portal_revocation',
    ]);
    const rows = await db
      .selectFrom('customer_contacts')
      .select(['username', 'username_key', 'login_version'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.username, r.username_key, Number(r.login_version)])).toEqual([
      ['ZOË.Ärnlund', 'zoë.ärnlund', 0],
      ['Plain.Name', 'plain.name', 0],
      [null, null, 0],
    ]);
    const after = await db
      .selectFrom('accounts')
      .select('portal_epoch')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(Number(after.portal_epoch)).toBe(0);
  });
});
