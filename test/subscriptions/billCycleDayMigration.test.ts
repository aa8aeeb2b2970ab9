import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount } from '../helpers/migrations.ts';

// Migration 0030 (docs/pricing.md, "Bill-cycle day"): accounts and customers made before it have no bill-cycle
// day, so their subscriptions renew as they always did. Migrated only up to 0030, whatever comes after it.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
let accountId: number;

beforeAll(async () => {
  database = await databaseMigratedUpTo('0027_portal_revocation');
  accountId = await insertAccount(database.db, 'Before 0030');
});

afterAll(async () => {
  await database?.close();
});

const db = () => database.db;

describe('migration 0030', () => {
  it('leaves accounts made before it without a bill-cycle day, and adds the column to customers and subscriptions', async () => {
    expect(await migrateUpTo(database.storage.db, '0030_bill_cycle_day')).toContain('0030_bill_cycle_day');
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
