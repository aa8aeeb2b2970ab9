import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { parseDatabaseUrl } from '../../src/config.ts';
import { openStorage } from '../../src/storage/database.ts';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { freshDatabase } from './service.ts';

/** A fresh database migrated only up to `lastMigration`, for a test of what the migrations after it do. */
export async function databaseMigratedUpTo(lastMigration: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-migration-'));
  const database = await freshDatabase(dataDir);
  const storage = openStorage(parseDatabaseUrl(database.url, dataDir));
  await migrateUpTo(storage.db, lastMigration);
  return {
    storage,
    // The rows as stored at that point: the service's own types name the columns of every later migration too.
    db: storage.db as unknown as Kysely<any>,
    async close() {
      await storage.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** An account as the migrations so far make one: the columns every version of the table has. */
export async function insertAccount(db: Kysely<any>, name: string): Promise<number> {
  const account = await db
    .insertInto('accounts')
    .values({ name, time_zone: 'UTC', currency_code: 'USD', created_at: '2026-03-01T00:00:00.000Z' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(account.id);
}

/** A row as the migrations so far shape its table; its id. */
export async function insertRow(
  db: Kysely<any>,
  table: string,
  values: Record<string, unknown>,
): Promise<number> {
  const row = await db.insertInto(table).values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}
