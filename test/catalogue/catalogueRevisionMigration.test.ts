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

// Migration 0031 (docs/architecture.md, "Catalogue pages kept in the process"): accounts made before it start at
// catalogue revision 0, which the first catalogue write moves on. Migrated only up to 0031, whatever comes after.

let storage: Storage;
let drop: () => Promise<void>;
let accountId: number;

const db = () => storage.db as unknown as Kysely<any>;

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-catalogue-revision-migration-'));
  const database = await freshDatabase(dataDir);
  drop = database.drop;
  storage = openStorage(parseDatabaseUrl(database.url, dataDir));
  await migrateUpTo(storage.db, '0030_bill_cycle_day');
  const account = await db()
    .insertInto('accounts')
    .values({
      name: 'Before 0031',
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

describe('migration 0031', () => {
  it('gives accounts made before it catalogue revision 0', async () => {
    expect(await migrateUpTo(storage.db, '0031_catalogue_revision')).toContain('0031_catalogue_revision');
    // Read as stored: the service's own reads name the columns of every later migration too.
    const account = await db()
      .selectFrom('accounts')
      .select('catalogue_revision')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(Number(account.catalogue_revision)).toBe(0);
  });
});
