import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount } from '../helpers/migrations.ts';

// Migration 0031 (docs/architecture.md, "Catalogue pages kept in the process"): accounts made before it start at
// catalogue revision 0, which the first catalogue write moves on. Migrated only up to 0031, whatever comes after.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
let accountId: number;

beforeAll(async () => {
  database = await databaseMigratedUpTo('0030_bill_cycle_day');
  accountId = await insertAccount(database.db, 'Before 0031');
});

afterAll(async () => {
  await database?.close();
});

const db = () => database.db;

describe('migration 0031', () => {
  it('gives accounts made before it catalogue revision 0', async () => {
    expect(await migrateUpTo(database.storage.db, '0031_catalogue_revision')).toContain(
      '0031_catalogue_revision',
    );
    // Read as stored: the service's own reads name the columns of every later migration too.
    const account = await db()
      .selectFrom('accounts')
      .select('catalogue_revision')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(Number(account.catalogue_revision)).toBe(0);
  });
});
