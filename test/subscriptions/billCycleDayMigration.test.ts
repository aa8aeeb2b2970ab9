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

// Migration 0030 (docs/pricing.md, "Bill-cycle day"): accounts and customers made before it have no bill-cycle
// day, so their subscriptions renew as they always did. Migrated only up to 0030, whatever comes after it.

let storage: Storage;
let drop: () => Promise<void>;
let accountId: number;

const db = () => storage.db as unknown as Kysely<any>;

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-bill-cycle-day-migration-'));
  const database = await freshDatabase(dataDir);
  drop = database.drop;
  storage = openStorage(parseDatabaseUrl(database.url, dataDir));
  await migrateUpTo(storage.db, '0027_portal_revocation');
  const account = await db()
    .insertInto('accounts')
    .values({
      name: 'Before 0030',
      time_zone: 'UTC',
      currency_code: 'USD',
      created_at: '2026-03-01T00:00:00.000Z',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  accountId = Number(account.id);
});

afterAll(async () => {
  await storage?.close();
  await drop?.();
});

describe('migration 0030', () => {
  it('leaves accounts made before it without a bill-cycle day, and adds the column to customers and subscriptions', async () => {
    expect(await migrateUpTo(storage.db, '0030_bill_cycle_day')).toContain('0030_bill_cycle_day');
    // Read as stored: the service's own reads name the columns of every later migration too.
    const account = await db()
      .selectFrom('accounts')
      .select('bill_cycle_day')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const customers = await db().selectFrom('customers').select('bill_cycle_day').execute();
    const subscriptions = await db().selectFrom('subscriptions').select('bill_cycle_day').execute();
    expect([account.bill_cycle_day, customers, subscriptions]).toEqual([null, [], []]);
  });
});
