import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Storage } from '../../src/storage/database.ts';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { freshDatabase } from '../helpers/service.ts';

// Migration 0027 (docs/spec-decisions.md, "Customer portal"): contacts made before it get the folded username the
// portal signs in by, also for letters beyond ASCII, and every session, token and account starts at version 0.
// Migrated only up to 0027, whatever comes after it; rows written as 0026 left them.

let storage: Storage;
let drop: () => Promise<void>;
let db: Kysely<any>;

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-portal-revocation-migration-'));
  const database = await freshDatabase(dataDir);
  drop = database.drop;
  storage = openStorage(parseDatabaseUrl(database.url, dataDir));
  await migrateUpTo(storage.db, '0026_portal_self_service');
  db = storage.db as unknown as Kysely<any>;
});

afterAll(async () => {
  await storage?.close();
  await drop?.();
});

describe('migration 0027', () => {
  it('folds the usernames of contacts made before it, beyond ASCII too', async () => {
    const account = await db
      .insertInto('accounts')
      .values({
        name: 'Before 0027',
        time_zone: 'UTC',
        currency_code: 'USD',
        created_at: '2026-03-01T00:00:00.000Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('account_currencies')
      .values({ account_id: account.id, currency_code: 'USD', created_at: '2026-03-01T00:00:00.000Z' })
      .execute();
    const customer = await db
      .insertInto('customers')
      .values({
        account_id: account.id,
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
      account_id: account.id,
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

    expect(await migrateUpTo(storage.db, '0027_portal_revocation')).toEqual(['0027_portal_revocation']);
    const rows = await db
      .selectFrom('customer_contacts')
      .select(['username', 'username_key', 'login_version'])
      .where('account_id', '=', account.id)
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
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(Number(after.portal_epoch)).toBe(0);
  });
});
