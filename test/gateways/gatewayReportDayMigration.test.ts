import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount, insertRow } from '../helpers/migrations.ts';

// Migration 0040 (docs/gateways.md, "Late events and webhooks"): a read of a provider's daily report keeps its day in
// gateway_calls.report_date; the reads made before it get theirs from their request, the other calls none.
// Migrated only up to 0040, whatever comes after it; rows written as 0039 left them, and read raw.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;

beforeAll(async () => {
  database = await databaseMigratedUpTo('0039_counters_with_owners');
});

afterAll(async () => {
  await database?.close();
});

const db = () => database.db;

describe('migration 0040', () => {
  it('gives the daily report reads made before it their day, and other calls none', async () => {
    const accountId = await insertAccount(db(), 'Before 0040');
    const call = (operation: string, request: string) =>
      insertRow(db(), 'gateway_calls', {
        account_id: accountId,
        gateway_id: 1,
        operation,
        request,
        outcome: 'ok',
        started_at: '2026-03-01T00:00:00.000Z',
        duration_ms: 3,
      });
    const report = await call('charge_events', JSON.stringify({ asOf: '2026-03-04' }));
    const charge = await call('charge', JSON.stringify({ asOf: '2026-03-04', amountMinor: 100 }));

    expect(await migrateUpTo(database.storage.db, '0040_gateway_report_day')).toContain(
      '0040_gateway_report_day',
    );

    const dayOf = async (id: number) =>
      (
        await db()
          .selectFrom('gateway_calls')
          .select('report_date')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).report_date;
    expect(await dayOf(report)).toBe('2026-03-04');
    expect(await dayOf(charge)).toBeNull();
  });
});
