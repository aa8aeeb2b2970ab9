import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_ROW_BYTES, prepareMonthPartitions } from '../../src/modules/usage/index.ts';
import { serviceMemory } from '../../src/context.ts';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount } from '../helpers/migrations.ts';

// Migration 0070 (docs/usage.md, "Limits"): each account's stored usage events, counted from the events already
// stored, as the insert counts them from then on. Migrated only up to 0069; rows written as 0069 left them.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;

beforeAll(async () => {
  database = await databaseMigratedUpTo('0069_username_key_unique');
  // PostgreSQL keeps events in monthly partitions, made ahead by the service: March 2026's here.
  await prepareMonthPartitions(database.storage.db, serviceMemory(), new Date('2026-03-15T00:00:00.000Z'));
});

afterAll(async () => {
  await database?.close();
});

const db = () => database.db;
let nextId = 1;

/** An event as 0042 stores it, without its usage_transactions row (the migration reads only the events). */
async function storeEvent(accountId: number, transactionId: string, properties: string): Promise<void> {
  await db()
    .insertInto('usage_events')
    .values({
      id: nextId++,
      account_id: accountId,
      customer_id: 1,
      subscription_id: null,
      metric_id: 1,
      transaction_id: transactionId,
      occurred_at: '2026-03-10T12:00:00.000Z',
      properties,
      counted: true,
      value: 1n,
      unique_value: '',
      group_value: '',
      received_at: '2026-03-10T12:00:00.000Z',
    })
    .execute();
}

describe('migration 0070', () => {
  it("counts each account's stored events and their bytes, as the service counts them", async () => {
    const busy = await insertAccount(db(), 'Busy');
    const small = await insertAccount(db(), 'Small');
    const none = await insertAccount(db(), 'None');
    // Bytes, not characters: "Zürich" is 7 bytes of UTF-8, "東京" 6.
    const busyEvents: [string, string][] = [
      ['tx-1', '{"city":"Zürich"}'],
      ['tx-2', '{"city":"東京","n":2}'],
      ['tx-three', '{}'],
    ];
    for (const [transactionId, properties] of busyEvents) await storeEvent(busy, transactionId, properties);
    await storeEvent(small, 'only', '{"a":1}');

    expect(await migrateUpTo(database.storage.db, '0070_usage_storage')).toContain('0070_usage_storage');

    const rows = await db()
      .selectFrom('usage_storage')
      .select(['account_id', 'event_count', 'stored_bytes'])
      .orderBy('account_id')
      .execute();
    // Busy: (18 + 4) + (23 + 4) + (2 + 8) + 3 × 100 = 359; Small: 7 + 4 + 100 = 111.
    expect(Buffer.byteLength('{"city":"Zürich"}')).toBe(18);
    expect(Buffer.byteLength('{"city":"東京","n":2}')).toBe(23);
    expect(EVENT_ROW_BYTES).toBe(100);
    expect(
      rows.map((row) => ({
        account: Number(row.account_id),
        events: Number(row.event_count),
        bytes: Number(row.stored_bytes),
      })),
    ).toEqual([
      { account: busy, events: 3, bytes: 359 },
      { account: small, events: 1, bytes: 111 },
    ]);
    expect(rows.map((row) => Number(row.account_id))).not.toContain(none);
  });
});
