import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount } from '../helpers/migrations.ts';

// Migration 0026 (docs/portal.md, "What customers may change"): an account made before it lets its customers
// cancel at the end of the period and switch to no package. Migrated only up to 0026, whatever comes after it.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
let accountId: number;

beforeAll(async () => {
  database = await databaseMigratedUpTo('0025_portal');
  accountId = await insertAccount(database.db, 'Before 0026');
});

afterAll(async () => {
  await database?.close();
});

describe('migration 0026', () => {
  it('gives accounts made before it cancelling allowed and no packages to switch to', async () => {
    expect(await migrateUpTo(database.storage.db, '0026_portal_self_service')).toEqual([
      '0026_portal_self_service',
    ]);
    // Read as stored: the service's own reads name the columns of every later migration too.
    const row = await database.db
      .selectFrom('accounts')
      .select(['portal_allow_cancel', 'portal_switch_package_ids'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect([Boolean(row.portal_allow_cancel), JSON.parse(row.portal_switch_package_ids)]).toEqual([true, []]);
  });
});
