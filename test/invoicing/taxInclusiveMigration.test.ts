import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount, insertRow } from '../helpers/migrations.ts';

// Migration 0029 (docs/pricing.md, "Tax-inclusive prices"): what existed before it keeps pricing exclusive of tax.
// An account and a package rate made before it are read raw after it; migrated only up to 0029,
// whatever comes after it.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
const ids: Record<string, number> = {};

beforeAll(async () => {
  database = await databaseMigratedUpTo('0027_portal_revocation');
  const db: Kysely<any> = database.db;
  const insert = (table: string, values: Record<string, unknown>) => insertRow(db, table, values);
  const at = '2026-03-01T00:00:00.000Z';
  ids.account = await insertAccount(db, 'Before 0029');
  const account_id = ids.account;
  await db
    .insertInto('account_currencies')
    .values({ account_id, currency_code: 'USD', created_at: at })
    .execute();
  const group = await insert('package_groups', { account_id, group_name: 'Plans', created_at: at });
  const pkg = await insert('packages', {
    account_id,
    package_group_id: group,
    package_code: 'OLD',
    name: 'Old',
    is_active: true,
    last_version_no: 1,
    created_at: at,
  });
  const version = await insert('package_versions', {
    account_id,
    package_id: pkg,
    version_no: 1,
    version_name: 'v1',
    is_default: true,
    is_active: true,
    created_at: at,
  });
  ids.rate = await insert('package_version_rates', {
    account_id,
    package_version_id: version,
    currency_code: 'USD',
    setup_fee: '0',
    trial_fee: '0',
    trial_period: 0,
    trial_period_type: 'days',
  });
});

afterAll(async () => {
  await database?.close();
});

describe('migration 0029', () => {
  it('leaves accounts exclusive of tax and rates following them', async () => {
    expect(await migrateUpTo(database.storage.db, '0029_tax_inclusive')).toContain('0029_tax_inclusive');
    // Read as stored: the service's own reads name the columns of every later migration too.
    const db = database.db;
    const account = await db
      .selectFrom('accounts')
      .select('is_tax_inclusive')
      .where('id', '=', ids.account!)
      .executeTakeFirstOrThrow();
    const rate = await db
      .selectFrom('package_version_rates')
      .select('is_tax_inclusive')
      .where('id', '=', ids.rate!)
      .executeTakeFirstOrThrow();
    expect([Boolean(account.is_tax_inclusive), rate.is_tax_inclusive]).toEqual([false, null]);
  });
});
