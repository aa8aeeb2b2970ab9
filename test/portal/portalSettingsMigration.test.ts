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

// Migration 0026 (docs/portal.md, "What customers may change"): an account made before it lets its customers
// cancel at the end of the period and switch to no package. Migrated only up to 0026, whatever comes after it.

let storage: Storage;
let drop: () => Promise<void>;
let accountId: number;

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-portal-settings-migration-'));
  const database = await freshDatabase(dataDir);
  drop = database.drop;
  storage = openStorage(parseDatabaseUrl(database.url, dataDir));
  await migrateUpTo(storage.db, '0025_portal');
  const db = storage.db as unknown as Kysely<any>;
  const row = await db
    .insertInto('accounts')
    .values({
      name: 'Before 0026',
      time_zone: 'UTC',
      currency_code: 'USD',
      created_at: '2026-03-01T00:00:00.000Z',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  accountId = Number(row.id);
});

afterAll(async () => {
  await storage?.close();
  await drop?.();
});

describe('migration 0026', () => {
  it('gives accounts made before it cancelling allowed and no packages to switch to', async () => {
    expect(await migrateUpTo(storage.db, '0026_portal_self_service')).toEqual(['0026_portal_self_service']);
    // Read as stored: the service's own reads name the columns of every later migration too.
    const row = await (storage.db as unknown as Kysely<any>)
      .selectFrom('accounts')
      .select(['portal_allow_cancel', 'portal_switch_package_ids'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect([Boolean(row.portal_allow_cancel), JSON.parse(row.portal_switch_package_ids)]).toEqual([true, []]);
  });
});
