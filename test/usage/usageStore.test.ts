import { beforeAll, describe, expect, it } from 'vitest';
import type { BillableMetric } from '../../src/modules/catalogue/index.ts';
import { usageQuantities } from '../../src/modules/usage/index.ts';
import type { UsageEventInput } from '../../src/modules/usage/index.ts';
import type { Db } from '../../src/storage/database.ts';
import { createCustomer, createPlan, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { defineMetric, recordEvents, usageAccount } from './usage.fixtures.ts';

// Recording events and reading a metric's quantity (docs/design/usage.md, "Storage: summed fast, exact"), on the
// suite's database, against figures computed by hand.

let db: Db;
const NOW = '2026-11-20T12:00:00.000Z';

const t = useTestService();
beforeAll(async () => {
  db = t.service.storage.db;
});

const ms = (iso: string) => Date.parse(iso);

/**
 * A day's events of one customer: e1 before the period, e7 at its end (both outside), e4 a duplicate of e3's
 * transaction with another value, e5 one the `tokens` metric's filter leaves out. The period is
 * [00:30, 03:30): its first and last hours are partial.
 */
const TABLE = [
  { tx: 'e1', at: '2026-11-20T00:10:00Z', n: 100, user: 'a', model: 'large', region: 'eu' },
  { tx: 'e2', at: '2026-11-20T00:45:00Z', n: 2.5, user: 'a', model: 'large', region: 'eu' },
  { tx: 'e3', at: '2026-11-20T01:15:00Z', n: 4, user: 'b', model: 'large', region: 'us' },
  { tx: 'e3', at: '2026-11-20T01:20:00Z', n: 1000, user: 'z', model: 'large', region: 'us' },
  { tx: 'e5', at: '2026-11-20T02:59:59.999Z', n: -1, user: 'c', model: 'small', region: 'eu' },
  { tx: 'e6', at: '2026-11-20T03:10:00Z', n: 3, user: 'a', model: 'large', region: 'eu' },
  { tx: 'e7', at: '2026-11-20T03:30:00Z', n: 50, user: 'd', model: 'large', region: 'eu' },
];
const PERIOD = { from: '2026-11-20T00:30:00.000Z', to: '2026-11-20T03:30:00.000Z' };

function tableFor(code: string, customerId: number, subscriptionId: number | null = null): UsageEventInput[] {
  return TABLE.map(({ tx, at, ...properties }) => ({
    transactionId: `${code}-${tx}`,
    customerId,
    subscriptionId,
    code,
    timestamp: at,
    properties,
  }));
}

describe('a metric over a table of events', () => {
  let customerId: number;
  const metrics = new Map<string, BillableMetric>();

  beforeAll(async () => {
    customerId = await createCustomer(t);
    const define = async (
      code: string,
      ...rest: Parameters<typeof defineMetric> extends [Db, number, string, ...infer R] ? R : never
    ) => metrics.set(code, await defineMetric(db, t.accountId, code, ...rest));
    await define('calls', 'count');
    await define('amount', 'sum', { property: 'n' });
    await define('peak', 'max', { property: 'n' });
    await define('users', 'unique_count', { property: 'user' });
    await define('last', 'latest', { property: 'n' });
    await define('held', 'weighted_sum', { property: 'n' });
    await define('tokens', 'sum', {
      property: 'n',
      filters: [{ property: 'model', values: ['large'] }],
      groupBy: 'region',
    });
    for (const code of metrics.keys()) {
      // Two batches, the second re-sending the first's last event: the insert decides duplicates either way.
      const events = tableFor(code, customerId);
      await recordEvents(db, usageAccount(t.accountId), NOW, events.slice(0, 4));
      await recordEvents(db, usageAccount(t.accountId), NOW, events.slice(3));
    }
  });

  const quantity = async (code: string, period = PERIOD) =>
    Object.fromEntries(
      await usageQuantities(db, t.accountId, {
        customerId,
        subscriptionId: 999_999,
        metric: metrics.get(code)!,
        ...period,
        claimed: [{ from: ms('2026-11-01T00:00:00Z'), to: ms('2026-12-01T00:00:00Z') }],
      }),
    );

  // Inside [00:30, 03:30): e2 2.5, e3 4, e5 −1, e6 3 (e3's duplicate not counted; e1 and e7 outside).
  it.each([
    ['calls', { '': '4' }],
    ['amount', { '': '8.5' }], // 2.5 + 4 − 1 + 3
    ['peak', { '': '4' }],
    ['users', { '': '3' }], // a, b, c
    ['last', { '': '3' }], // e6
    // 100 carried from e1, then each value weighted by the whole seconds from it to 03:30, over 10,800 s:
    // 100 + (2.5 × 9,900 + 4 × 8,100 − 1 × 1,801 + 3 × 1,200) / 10,800 = 100 + 58,949 / 10,800 = 105.4582 (rounded)
    ['held', { '': '105.4582' }],
    // Filtered to model "large" (e5 left out), one line per region: eu 2.5 + 3, us 4.
    ['tokens', { eu: '5.5', us: '4' }],
  ])('%s is %j', async (code, expected) => {
    expect(await quantity(code)).toEqual(expected);
  });

  it('reads the same from rollups alone when the period is whole hours', async () => {
    // [00:00, 04:00): e1..e7 except the duplicate: 100 + 2.5 + 4 − 1 + 3 + 50.
    expect(
      await quantity('amount', { from: '2026-11-20T00:00:00.000Z', to: '2026-11-20T04:00:00.000Z' }),
    ).toEqual({
      '': '158.5',
    });
  });

  it('counts an unnamed event only inside the time its subscription claims', async () => {
    const claimedFrom = { from: ms('2026-11-20T01:00:00Z'), to: ms('2026-11-20T03:00:00Z') };
    const amount = await usageQuantities(db, t.accountId, {
      customerId,
      subscriptionId: 999_999,
      metric: metrics.get('amount')!,
      ...PERIOD,
      claimed: [claimedFrom],
    });
    expect(Object.fromEntries(amount)).toEqual({ '': '3' }); // e3 4, e5 −1
  });
});

describe('recording', () => {
  it('answers each event in order: accepted, duplicate of the first, or refused naming the field', async () => {
    const customerId = await createCustomer(t);
    const other = await t.newAccount();
    const othersCustomer = await createCustomer(other);
    await defineMetric(db, t.accountId, 'rec-sum', 'sum', { property: 'n' });
    await defineMetric(db, t.accountId, 'rec-held', 'weighted_sum', { property: 'n' });
    const base = { customerId, subscriptionId: null, code: 'rec-sum', timestamp: NOW, properties: { n: 1 } };
    const outcomes = await recordEvents(db, usageAccount(t.accountId), NOW, [
      { ...base, transactionId: 'r1' },
      { ...base, transactionId: 'r1', properties: { n: 5 } },
      { ...base, transactionId: 'r2', code: 'nope' },
      { ...base, transactionId: 'r3', customerId: othersCustomer },
      { ...base, transactionId: 'r4', timestamp: '2026-11-17T11:59:59Z' },
      { ...base, transactionId: 'r5', timestamp: '2026-11-21T12:00:01Z' },
      { ...base, transactionId: 'r6', properties: { n: 'x' } },
      { ...base, transactionId: 'r7', code: 'rec-held', properties: { n: 1_000_001 } },
      { ...base, transactionId: 'r8', timestamp: 'yesterday' },
      { ...base, transactionId: 'r9', subscriptionId: 123_456 },
      { ...base, transactionId: 'r10', timestamp: '2026-11-31T10:00:00Z' },
    ]);
    const first = outcomes[0]!;
    expect(first.status).toBe('accepted');
    expect(outcomes.slice(1)).toEqual([
      { status: 'duplicate', eventId: (first as { eventId: number }).eventId },
      { status: 'refused', field: 'code', detail: 'names no active billable metric of this account' },
      { status: 'refused', field: 'customerID', detail: 'no such customer in this account' },
      {
        status: 'refused',
        field: 'timestamp',
        detail: "is older than the account's grace window of 72 hours",
      },
      { status: 'refused', field: 'timestamp', detail: 'is more than 24 hours after now' },
      { status: 'refused', field: 'properties.n', detail: 'must be a number (or a decimal string)' },
      {
        status: 'refused',
        field: 'properties.n',
        detail: 'must be between -1000000 and 1000000 for a weighted_sum metric',
      },
      { status: 'refused', field: 'timestamp', detail: 'must be an ISO 8601 date-time' },
      { status: 'refused', field: 'subscriptionID', detail: "no such subscription of this event's customer" },
      { status: 'refused', field: 'timestamp', detail: 'must be an ISO 8601 date-time' },
    ]);
    // Re-sent later, the first is a duplicate of itself and a refused one may now be accepted.
    const again = await recordEvents(db, usageAccount(t.accountId), NOW, [
      { ...base, transactionId: 'r1' },
      { ...base, transactionId: 'r6' },
    ]);
    expect(again[0]).toEqual(
      first.status === 'accepted' ? { status: 'duplicate', eventId: first.eventId } : null,
    );
    expect(again[1]!.status).toBe('accepted');
  });

  it("counts an event naming a subscription for it alone, whatever the others' claims", async () => {
    const customerId = await createCustomer(t);
    const plan = await createPlan(t);
    const subscription = await subscribe(t, customerId, plan);
    const metric = await defineMetric(db, t.accountId, 'named-sum', 'sum', { property: 'n' });
    const event = (transactionId: string, subscriptionId: number | null, n: number) => ({
      transactionId,
      customerId,
      subscriptionId,
      code: 'named-sum',
      timestamp: '2026-11-20T10:00:00Z',
      properties: { n },
    });
    const outcomes = await recordEvents(db, usageAccount(t.accountId), NOW, [
      event('n1', subscription.subscriptionID, 7),
      event('n2', null, 5),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['accepted', 'accepted']);
    const read = (subscriptionId: number, claimed: { from: number; to: number }[]) =>
      usageQuantities(db, t.accountId, {
        customerId,
        subscriptionId,
        metric,
        from: '2026-11-20T00:00:00.000Z',
        to: '2026-11-21T00:00:00.000Z',
        claimed,
      });
    const day = { from: ms('2026-11-20T00:00:00Z'), to: ms('2026-11-21T00:00:00Z') };
    expect(Object.fromEntries(await read(subscription.subscriptionID, []))).toEqual({ '': '7' });
    expect(Object.fromEntries(await read(subscription.subscriptionID, [day]))).toEqual({ '': '12' });
    expect(Object.fromEntries(await read(999_999, [day]))).toEqual({ '': '5' });
  });
});

describe('a period bounded by midnight in a zone 5:30 ahead of UTC', () => {
  it('reads its edge hours from raw events, so that events either side of the bound fall on their own side', async () => {
    const customerId = await createCustomer(t);
    const metric = await defineMetric(db, t.accountId, 'kolkata-calls', 'count');
    const account = usageAccount(t.accountId, 72, 'Asia/Kolkata');
    // Local times, read in the account's zone: 20 Nov 00:00 in Kolkata is 19 Nov 18:30 UTC.
    const at = [
      '2026-11-19T23:59:59.999',
      '2026-11-20T00:00:00',
      '2026-11-20T00:29:00',
      '2026-11-20T23:59:00',
    ];
    await recordEvents(
      db,
      account,
      NOW,
      at.map((timestamp, i) => ({
        transactionId: `kol-${i}`,
        customerId,
        subscriptionId: null,
        code: 'kolkata-calls',
        timestamp,
        properties: {},
      })),
    );
    const day = { from: '2026-11-19T18:30:00.000Z', to: '2026-11-20T18:30:00.000Z' };
    const read = await usageQuantities(db, t.accountId, {
      customerId,
      subscriptionId: 999_999,
      metric,
      ...day,
      claimed: [{ from: ms(day.from), to: ms(day.to) }],
    });
    // The last three: 18:30:00Z, 18:59Z (both in the 18:00Z hour, half of it outside the day) and 18:29Z the next day.
    expect(Object.fromEntries(read)).toEqual({ '': '3' });
  });
});

describe("an hour's total past 64 bits", () => {
  it('refuses the batch that would pass it whole, and keeps the total before it', async () => {
    const customerId = await createCustomer(t);
    const metric = await defineMetric(db, t.accountId, 'huge', 'sum', { property: 'n' });
    const event = (transactionId: string) => ({
      transactionId,
      customerId,
      subscriptionId: null,
      code: 'huge',
      timestamp: '2026-11-20T10:30:00Z',
      properties: { n: 1_000_000_000 },
    });
    await recordEvents(db, usageAccount(t.accountId), NOW, [event('huge-1'), event('huge-2')]);
    // Two events at the bound are 2·10^13 ten-thousandths; an hour would need 922,000 of them to pass 2^63 − 1, so
    // the stored total is moved near it by hand: 2^63 − 1 less 10^13 − 1 holds one more event's 10^13 no longer.
    const nearMax = 9_223_372_036_854_775_807n - 9_999_999_999_999n;
    await db
      .updateTable('usage_rollups')
      .set({ value_sum: nearMax })
      .where('account_id', '=', t.accountId)
      .where('metric_id', '=', metric.id)
      .execute();
    const refused = recordEvents(db, usageAccount(t.accountId), NOW, [event('huge-3')]);
    await expect(refused).rejects.toMatchObject({
      code: 'usage_total_too_large',
      fields: [{ field: 'properties', message: expect.any(String) }],
    });
    const read = await usageQuantities(db, t.accountId, {
      customerId,
      subscriptionId: 999_999,
      metric,
      from: '2026-11-20T10:00:00.000Z',
      to: '2026-11-20T11:00:00.000Z',
      claimed: [{ from: ms('2026-11-20T00:00:00Z'), to: ms('2026-11-21T00:00:00Z') }],
    });
    expect(Object.fromEntries(read)).toEqual({ '': '922336203685477.5808' }); // nearMax, exact past 2^53;
    const listed = await db
      .selectFrom('usage_transactions')
      .select('id')
      .where('transaction_id', '=', 'huge-3')
      .execute();
    expect(listed).toEqual([]);
  });
});
