import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCatalogue, shardProblems } from '../../scripts/shardReadiness.ts';
import { migrateToLatest, migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount, insertRow } from '../helpers/migrations.ts';
import { dialect } from '../helpers/service.ts';

// Migration 0079 (docs/operations.md, "Beyond one PostgreSQL"): every key of an account's rows names the account.
// Rows written as 0078 left them, then migrated.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
const at = '2026-03-01T00:00:00.000Z';

beforeAll(async () => {
  database = await databaseMigratedUpTo('0078_reduction_tax_parts');
});

afterAll(async () => {
  await database?.close();
});

const db = () => database.db;

/** An account with a customer, a custom field and a webhook delivery attempted once. */
async function accountWithRows(name: string) {
  const account = await insertAccount(db(), name);
  await db()
    .insertInto('account_currencies')
    .values({ account_id: account, currency_code: 'USD', created_at: at })
    .execute();
  const customer = await insertRow(db(), 'customers', {
    account_id: account,
    name,
    currency_code: 'USD',
    is_company: 0,
    is_suspended: 0,
    is_active: 1,
    is_waive_taxes: 0,
    auto_send_invoice: 0,
    auto_send_statement: 0,
    created_at: at,
    updated_at: at,
  });
  const field = await insertRow(db(), 'custom_fields', {
    account_id: account,
    field_key: 'region',
    created_at: at,
  });
  const endpoint = await insertRow(db(), 'webhook_endpoints', {
    account_id: account,
    url: 'https://example.com/hooks',
    enabled_events: '[]',
    status: 'enabled',
    secret_sealed: 'sealed',
    created_at: at,
    updated_at: at,
  });
  const eventId = `evt_${name}`;
  await db()
    .insertInto('events')
    .values({
      id: eventId,
      account_id: account,
      type: 'customer.created',
      resource_type: 'customer',
      resource_id: String(customer),
      resource_version: 1,
      payload: '{}',
      occurred_at: at,
      recorded_at: at,
    })
    .execute();
  const delivery = await insertRow(db(), 'webhook_deliveries', {
    account_id: account,
    endpoint_id: endpoint,
    event_id: eventId,
    status: 'delivered',
    attempts: 1,
    created_at: at,
  });
  await insertRow(db(), 'webhook_attempts', { delivery_id: delivery, attempted_at: at, duration_ms: 5 });
  return { account, customer, field, delivery };
}

describe('migration 0079', () => {
  it("gives each webhook attempt its delivery's account, and the upserts their keys with the account", async () => {
    const first = await accountWithRows('first');
    const second = await accountWithRows('second');

    expect(await migrateUpTo(database.storage.db, '0079_keys_with_account')).toEqual([
      '0079_keys_with_account',
    ]);

    const attempts = await db()
      .selectFrom('webhook_attempts')
      .select(['delivery_id', 'account_id'])
      .execute();
    expect(attempts.map((row) => [Number(row.delivery_id), Number(row.account_id)]).sort()).toEqual(
      [
        [first.delivery, first.account],
        [second.delivery, second.account],
      ].sort(),
    );
    // The statement the service runs on both databases (customFields.repository.ts): its conflict target names the
    // account.
    for (const value of ['north', 'south']) {
      await db()
        .insertInto('customer_custom_values')
        .values({
          account_id: first.account,
          customer_id: first.customer,
          custom_field_id: first.field,
          value,
        })
        .onConflict((oc) =>
          oc.columns(['customer_id', 'custom_field_id', 'account_id']).doUpdateSet({ value }),
        )
        .execute();
    }
    const values = await db().selectFrom('customer_custom_values').select('value').execute();
    expect(values).toEqual([{ value: 'south' }]);
    await migrateToLatest(database.storage.db);
  });

  // PostgreSQL's keys change; SQLite keeps its own (the migration's comment says why).
  it("leaves the tables ready to distribute by account, and no row pointing at another account's", async () => {
    if (dialect !== 'postgres') {
      const conflictTargets = [
        'customer_custom_values_key',
        'feature_values_package_key',
        'feature_values_subscription_key',
        'usage_alert_firings_once_key',
      ];
      const indexes = await db()
        .selectFrom('sqlite_master')
        .select('sql')
        .where('type', '=', 'index')
        .where('name', 'in', conflictTargets)
        .execute();
      expect(indexes).toHaveLength(conflictTargets.length);
      for (const index of indexes) expect(index.sql).toMatch(/^CREATE UNIQUE INDEX .*, "account_id"\)$/);
      return;
    }
    expect(shardProblems(await readCatalogue(db()))).toEqual([]);
    const first = await db()
      .selectFrom('customers')
      .select(['id', 'account_id'])
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const othersField = await db()
      .selectFrom('custom_fields')
      .select('id')
      .where('account_id', '!=', first.account_id)
      .executeTakeFirstOrThrow();
    await expect(
      db()
        .insertInto('customer_custom_values')
        .values({
          account_id: first.account_id,
          customer_id: first.id,
          custom_field_id: othersField.id,
          value: 'x',
        })
        .execute(),
    ).rejects.toMatchObject({ code: '23503' });
  });
});
