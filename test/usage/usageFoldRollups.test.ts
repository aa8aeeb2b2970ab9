import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { UsageEventInput, UsageEventOutcome } from '../../src/modules/usage/index.ts';
import { isPostgres } from '../../src/storage/columns.ts';
import type { Db } from '../../src/storage/database.ts';
import { createCustomer } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { defineMetric, recordEvents, usageAccount } from './usage.fixtures.ts';

// What one fold leaves in the rollups, figure by figure (docs/design/usage.md, "Speed (bench:usage)"): the latest by
// time then by id, weighted_sum at the whole second, unique values once an hour, events the metric's filters leave
// out stored but not counted, and an hour that is UTC's whatever the session's time zone. Written for a fold that
// summed its rollups in SQL (measured and not kept); it holds any way of folding to them.

let db: Db;
const NOW = '2026-11-20T12:00:00.000Z';

const t = useTestService();
beforeAll(async () => {
  db = t.service.storage.db;
});

async function meteredCustomer() {
  const as = await t.newAccount();
  return { accountId: as.accountId, customerId: await createCustomer(as) };
}

function eventOf(customerId: number) {
  return (transactionId: string, code: string, timestamp: string, properties: Record<string, unknown>) =>
    ({
      transactionId,
      customerId,
      subscriptionId: null,
      code,
      timestamp,
      properties,
    }) satisfies UsageEventInput;
}

/** The stored rollups of a metric, hour by hour, their 64-bit figures as text. */
async function rollupsOf(accountId: number, metricId: number) {
  return db
    .selectFrom('usage_rollups')
    .select([
      'group_value',
      'hour',
      'event_count',
      sql<string>`cast(value_sum as text)`.as('value_sum'),
      sql<string>`cast(value_max as text)`.as('value_max'),
      sql<string>`cast(latest_value as text)`.as('latest_value'),
      'latest_at',
      'latest_id',
      sql<string>`cast(weighted_seconds as text)`.as('weighted_seconds'),
    ])
    .where('account_id', '=', accountId)
    .where('metric_id', '=', metricId)
    .orderBy('group_value')
    .orderBy('hour')
    .execute();
}

const idOf = (outcome: UsageEventOutcome | undefined): number => {
  if (outcome?.status !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(outcome)}`);
  return outcome.eventId;
};

describe("one fold's rollups", () => {
  it('keep the latest by time then by id, and weighted_sum at the whole second', async () => {
    const { accountId, customerId } = await meteredCustomer();
    const latest = await defineMetric(db, accountId, 'seats', 'latest', { property: 'n' });
    const weighted = await defineMetric(db, accountId, 'storage', 'weighted_sum', { property: 'n' });
    const event = eventOf(customerId);
    // Claimed in transaction-id order, so within the fold l-a's id is below l-b's and w-a's below w-b's.
    const outcomes = await recordEvents(db, usageAccount(accountId), NOW, [
      event('l-c', 'seats', '2026-11-20T10:10:00.000Z', { n: 9 }),
      event('l-b', 'seats', '2026-11-20T10:15:00.000Z', { n: 5 }),
      event('l-a', 'seats', '2026-11-20T10:15:00.000Z', { n: 7 }),
      event('w-b', 'storage', '2026-11-20T10:30:00.100Z', { n: 3 }),
      event('w-a', 'storage', '2026-11-20T10:30:00.900Z', { n: 2 }),
      event('w-c', 'storage', '2026-11-20T10:59:59.999Z', { n: 1 }),
    ]);
    const [, lb, la, wb, wa, wc] = outcomes.map(idOf);
    expect(la!).toBeLessThan(lb!);
    expect(wa!).toBeLessThan(wb!);

    // latest: l-a and l-b tie at 10:15:00.000; l-b has the higher id, so 5 (50 000 ten-thousandths), not l-a's 7 nor
    // l-c's 9 (the largest, but earlier). Sum 9 + 5 + 7 = 21.
    expect(await rollupsOf(accountId, latest.id)).toEqual([
      {
        group_value: '',
        hour: '2026-11-20T10:00:00.000Z',
        event_count: 3,
        value_sum: '210000',
        value_max: '90000',
        latest_value: '50000',
        latest_at: '2026-11-20T10:15:00.000Z',
        latest_id: lb,
        weighted_seconds: '0',
      },
    ]);

    // weighted_sum at the whole second: w-b (10:30:00.100) and w-a (10:30:00.900) both at 10:30:00, where w-b's
    // higher id makes it the latest until w-c at 10:59:59. Σ value × seconds since the hour:
    // (30 000 + 20 000) × 1 800 + 10 000 × 3 599 = 90 000 000 + 35 990 000 = 125 990 000.
    expect(await rollupsOf(accountId, weighted.id)).toEqual([
      {
        group_value: '',
        hour: '2026-11-20T10:00:00.000Z',
        event_count: 3,
        value_sum: '60000',
        value_max: '30000',
        latest_value: '10000',
        latest_at: '2026-11-20T10:59:59.000Z',
        latest_id: wc,
        weighted_seconds: '125990000',
      },
    ]);

    // A second fold of the same hour: w-d ties with w-c at 10:59:59 (floored from .500) and has the higher id.
    const [wd] = (
      await recordEvents(db, usageAccount(accountId), NOW, [
        event('w-d', 'storage', '2026-11-20T10:59:59.500Z', { n: 4 }),
      ])
    ).map(idOf);
    // 125 990 000 + 40 000 × 3 599 = 125 990 000 + 143 960 000 = 269 950 000.
    expect(await rollupsOf(accountId, weighted.id)).toMatchObject([
      {
        event_count: 4,
        value_sum: '100000',
        value_max: '40000',
        latest_value: '40000',
        latest_at: '2026-11-20T10:59:59.000Z',
        latest_id: wd,
        weighted_seconds: '269950000',
      },
    ]);
  });

  it('keep each unique value once an hour, and leave out the events the filters do not count', async () => {
    const { accountId, customerId } = await meteredCustomer();
    const users = await defineMetric(db, accountId, 'users', 'unique_count', { property: 'user' });
    const euCalls = await defineMetric(db, accountId, 'eu_calls', 'sum', {
      property: 'n',
      filters: [{ property: 'region', values: ['eu'] }],
      groupBy: 'zone',
    });
    const event = eventOf(customerId);
    const outcomes = await recordEvents(db, usageAccount(accountId), NOW, [
      event('u1', 'users', '2026-11-20T09:05:00.000Z', { user: 'ann' }),
      event('u2', 'users', '2026-11-20T09:25:00.000Z', { user: 'bob' }),
      event('u3', 'users', '2026-11-20T09:45:00.000Z', { user: 'ann' }),
      event('u4', 'users', '2026-11-20T10:05:00.000Z', { user: 'ann' }),
      event('c1', 'eu_calls', '2026-11-20T09:10:00.000Z', { n: 4, region: 'eu', zone: 'z1' }),
      event('c2', 'eu_calls', '2026-11-20T09:20:00.000Z', { n: 6, region: 'us', zone: 'z1' }),
      event('c3', 'eu_calls', '2026-11-20T09:30:00.000Z', { n: 1, region: 'eu', zone: 'z2' }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(Array(7).fill('accepted'));

    const uniques = await db
      .selectFrom('usage_unique_values')
      .select(['hour', 'unique_value'])
      .where('account_id', '=', accountId)
      .where('metric_id', '=', users.id)
      .orderBy('hour')
      .orderBy('unique_value')
      .execute();
    // ann twice in 09:00 is kept once; ann again in 10:00 is that hour's.
    expect(uniques).toEqual([
      { hour: '2026-11-20T09:00:00.000Z', unique_value: 'ann' },
      { hour: '2026-11-20T09:00:00.000Z', unique_value: 'bob' },
      { hour: '2026-11-20T10:00:00.000Z', unique_value: 'ann' },
    ]);
    expect((await rollupsOf(accountId, users.id)).map((r) => [r.hour, r.event_count])).toEqual([
      ['2026-11-20T09:00:00.000Z', 3],
      ['2026-11-20T10:00:00.000Z', 1],
    ]);

    // c2 (region us) is stored, as every accepted event is, and counted nowhere: z1 holds c1's 4 alone.
    const stored = await db
      .selectFrom('usage_events')
      .select('transaction_id')
      .where('account_id', '=', accountId)
      .where('metric_id', '=', euCalls.id)
      .orderBy('transaction_id')
      .execute();
    expect(stored.map((e) => e.transaction_id)).toEqual(['c1', 'c2', 'c3']);
    expect(
      (await rollupsOf(accountId, euCalls.id)).map((r) => [r.group_value, r.event_count, r.value_sum]),
    ).toEqual([
      ['z1', 1, '40000'],
      ['z2', 1, '10000'],
    ]);
  });

  it("put an event in its UTC hour whatever the session's time zone", async () => {
    const { accountId, customerId } = await meteredCustomer();
    const calls = await defineMetric(db, accountId, 'calls', 'count');
    const event = eventOf(customerId);
    await db.transaction().execute(async (trx) => {
      // NOTE: PostgreSQL truncates a timestamptz to the hour in the session's zone unless told which: at 5:30 ahead
      // of UTC, 10:45Z is 16:15 there, whose hour would be 10:30Z. SQLite has no session zone.
      if (isPostgres(trx)) await sql`set local time zone 'Asia/Kolkata'`.execute(trx);
      await recordEvents(trx, usageAccount(accountId), NOW, [
        event('k1', 'calls', '2026-11-20T10:45:00.000Z', {}),
      ]);
    });
    expect((await rollupsOf(accountId, calls.id)).map((r) => [r.hour, r.event_count])).toEqual([
      ['2026-11-20T10:00:00.000Z', 1],
    ]);
  });
});
