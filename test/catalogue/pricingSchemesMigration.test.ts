import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount, insertRow } from '../helpers/migrations.ts';

// Migration 0028 (docs/pricing.md, "Usage schemes"): brackets and prices written before it have no flat fee and no
// blocks, so they price as they did. Migrated only up to 0028, whatever comes after it; rows written as 0027 left
// them, and read raw.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
let db: Kysely<any>;
const AT = '2026-03-01T00:00:00.000Z';

beforeAll(async () => {
  database = await databaseMigratedUpTo('0027_portal_revocation');
  db = database.db;
});

afterAll(async () => {
  await database?.close();
});

const insert = (table: string, values: Record<string, unknown>) => insertRow(db, table, values);

describe('migration 0028', () => {
  it('leaves earlier brackets and prices without flat fees or blocks, and stores both after', async () => {
    const accountId = await insertAccount(db, 'Before 0028');
    await db
      .insertInto('account_currencies')
      .values({ account_id: accountId, currency_code: 'USD', created_at: AT })
      .execute();
    const groupId = await insert('package_groups', {
      account_id: accountId,
      group_name: 'Usage',
      created_at: AT,
    });
    const componentId = await insert('components', {
      account_id: accountId,
      package_group_id: groupId,
      component_code: 'SMS',
      name: 'SMS',
      is_active: true,
      unit_name: 'sms',
      term: 1,
      term_type: 'months',
      type: 'metered',
      scheme: 'unit',
      last_version_no: 1,
      created_at: AT,
    });
    const versionId = await insert('component_versions', {
      account_id: accountId,
      component_id: componentId,
      version_no: 1,
      version_name: 'v1',
      is_default: true,
      is_active: true,
      created_at: AT,
    });
    const currencyId = await insert('component_version_currencies', {
      account_id: accountId,
      component_version_id: versionId,
      currency_code: 'USD',
    });
    await insert('component_brackets', {
      account_id: accountId,
      component_version_currency_id: currencyId,
      price: '0.8',
      qty_from: '1',
      qty_till: null,
    });

    expect(await migrateUpTo(database.storage.db, '0028_pricing_schemes')).toEqual(['0028_pricing_schemes']);
    const currency = await db
      .selectFrom('component_version_currencies')
      .select(['package_size', 'package_price', 'free_units'])
      .where('id', '=', currencyId)
      .executeTakeFirstOrThrow();
    expect(currency).toEqual({ package_size: null, package_price: null, free_units: null });
    const bracket = await db
      .selectFrom('component_brackets')
      .select(['price', 'flat_price'])
      .where('component_version_currency_id', '=', currencyId)
      .executeTakeFirstOrThrow();
    expect([String(bracket.price), bracket.flat_price]).toEqual(['0.8', null]);

    await db
      .updateTable('component_version_currencies')
      .set({ package_size: '100', package_price: '5.25', free_units: '50' })
      .where('id', '=', currencyId)
      .execute();
    await db
      .updateTable('component_brackets')
      .set({ flat_price: '10.5' })
      .where('component_version_currency_id', '=', currencyId)
      .execute();
    const written = await db
      .selectFrom('component_version_currencies')
      .innerJoin(
        'component_brackets',
        'component_brackets.component_version_currency_id',
        'component_version_currencies.id',
      )
      .select(['package_size', 'package_price', 'free_units', 'flat_price'])
      .where('component_version_currencies.id', '=', currencyId)
      .executeTakeFirstOrThrow();
    // NOTE: numeric on PostgreSQL and text on SQLite both read back as the decimal string written.
    expect(Object.values(written).map(String)).toEqual(['100', '5.25', '50', '10.5']);
  });
});
