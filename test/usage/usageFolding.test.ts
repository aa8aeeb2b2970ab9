import type { KyselyPlugin } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/context.ts';
import { CustomerQueue } from '../../src/http/customerQueue.ts';
import { sendInUsageTurn, WAITING_CALLS } from '../../src/flows/recordUsage.ts';
import { foldedEvents, reconcileUsage, usageLanes } from '../../src/modules/usage/index.ts';
import type { SentUsageEvent, UsageEventOutcome } from '../../src/modules/usage/index.ts';
import { accountContext } from '../helpers/context.ts';
import { createCustomer } from '../helpers/billing.ts';
import { holdStatement, insertInto } from '../helpers/heldStatement.ts';
import { dialect, eventually, startAnotherInstance } from '../helpers/service.ts';
import { startFresh, useTestService } from '../helpers/testService.ts';
import { defineMetric } from './usage.fixtures.ts';

// The calls waiting behind an account's usage turns are recorded together, in a turn's one transaction, each
// answered with its own outcomes as if it had had its turn alone (docs/design/usage.md, "Speed (bench:usage)").
// The calls are made in the process, so that the order in which they take their places in line is known.

let ctx: ServiceContext;
// The workers stay idle: on SQLite a worker's poll is a write, which would wait for the held transaction.
const t = useTestService({ env: { WORKER_INTERVAL_MS: '3600000' } });
beforeAll(async () => {
  ctx = await accountContext(t, t.accountId);
  await defineMetric(t.service.storage.db, t.accountId, 'lane', 'count');
  const customerId = await createCustomer(t);
  laneEvent = (transactionId) => sentEvent(customerId, 'lane', transactionId);
  // An event recorded first makes this month's partitions on PostgreSQL, if the service's start has not: a held fold
  // making them would hold their lock (usagePartitions.ts), and the other lane's fold would wait for it.
  const warmUp = new CustomerQueue({ waitingPerCustomer: 1, waitingPerAccount: 1, lockTimeoutMs: 5_000 });
  await sendInUsageTurn(warmUp, ctx, [laneEvent('warm-up')]);
});

/**
 * Counts the inserts into usage_events: one per transaction of up to 100 events. With `failWith`, each fails with
 * it, as the driver fails a statement (the database busy, say).
 */
function countEventInserts(failWith?: Error): { plugin: KyselyPlugin; count: () => number } {
  let inserts = 0;
  const isEventInsert = insertInto('usage_events');
  return {
    count: () => inserts,
    plugin: {
      transformQuery({ node }) {
        if (isEventInsert(node)) {
          inserts++;
          if (failWith) throw failWith;
        }
        return node;
      },
      transformResult: async ({ result }) => result,
    },
  };
}

/** One event of a customer of its own, for the calls that take the account's other lanes. */
let laneEvent: (transactionId: string) => SentUsageEvent;

/**
 * The first call's insert held, and as many calls as the account has lanes besides (usageLanes: one more on
 * PostgreSQL), the calls given then take their places in line behind them; released, they are recorded. Returns
 * every call's answer (outcomes, or what it threw) and how many inserts of events the calls behind the first made
 * (each failing with `failWith` if given).
 */
async function behindAHeldCall(first: SentUsageEvent[], behind: SentUsageEvent[][], failWith?: Error) {
  const queue = new CustomerQueue({ waitingPerCustomer: 50, waitingPerAccount: 200, lockTimeoutMs: 5_000 });
  const db = t.service.storage.db;
  const held = Array.from({ length: usageLanes(db) }, () => holdStatement(insertInto('usage_events')));
  const inserts = countEventInserts(failWith);
  const answer = (call: Promise<UsageEventOutcome[]>) =>
    call.then(
      (outcomes) => ({ outcomes }),
      (error: unknown) => ({ error: error as { code?: string } }),
    );
  const holding = (i: number) => ({ ...ctx, db: db.withPlugin(held[i]!.plugin) });
  try {
    const firstAnswer = answer(sendInUsageTurn(queue, holding(0), first));
    const lanes = held
      .slice(1)
      .map((_, i) =>
        answer(sendInUsageTurn(queue, holding(i + 1), [laneEvent(`lane-${crypto.randomUUID()}`)])),
      );
    await Promise.all(held.map((h) => h.reached));
    const counted = { ...ctx, db: db.withPlugin(inserts.plugin) };
    const answers = behind.map((sent) => answer(sendInUsageTurn(queue, counted, sent)));
    for (const h of held) h.release();
    for (const lane of await Promise.all(lanes))
      expect(lane).toEqual({ outcomes: [expect.objectContaining({ status: 'accepted' })] });
    return { first: await firstAnswer, behind: await Promise.all(answers), inserts: inserts.count() };
  } finally {
    for (const h of held) h.release();
  }
}

/** An event of the customer for the metric `code`, at `timestamp` (now unless given). */
const sentEvent = (
  customerId: number,
  code: string,
  transactionId: string,
  properties: Record<string, unknown> = {},
  timestamp = new Date().toISOString(),
): SentUsageEvent => ({
  transactionId,
  customer: { id: customerId },
  subscriptionId: null,
  code,
  timestamp,
  properties,
});

describe("an account's waiting usage calls", () => {
  it('are recorded in one transaction, each answered with its own outcomes, duplicates across them once', async () => {
    await defineMetric(t.service.storage.db, t.accountId, 'calls', 'count');
    const customerId = await createCustomer(t);
    const event = (transactionId: string, customer = customerId) =>
      sentEvent(customer, 'calls', transactionId);

    const { first, behind, inserts } = await behindAHeldCall(
      [event('f-a0')],
      [
        [event('f-b1'), event('f-b2', 999_999_999), event('f-a0')],
        [event('f-b1'), event('f-c1')],
      ],
    );
    // The two calls behind the first took one transaction: one insert of their events.
    expect(inserts).toBe(1);
    const a = (first as { outcomes: UsageEventOutcome[] }).outcomes;
    const [b, c] = behind.map((answer) => (answer as { outcomes: UsageEventOutcome[] }).outcomes);
    expect(a).toEqual([{ status: 'accepted', eventId: expect.any(Number) }]);
    // A duplicate answers the event first sent: the first call's, and the second's for the third.
    expect(b).toEqual([
      { status: 'accepted', eventId: expect.any(Number) },
      { status: 'refused', field: 'customerID', detail: expect.any(String) },
      { status: 'duplicate', eventId: (a[0] as { eventId: number }).eventId },
    ]);
    expect(c).toEqual([
      { status: 'duplicate', eventId: (b![0] as { eventId: number }).eventId },
      { status: 'accepted', eventId: expect.any(Number) },
    ]);

    const listed = await t.request('GET', `/v1/customers/${customerId}/usage-events`);
    const recorded = listed.body.map((e: { transaction_id: string }) => e.transaction_id).sort();
    expect(recorded).toEqual(['f-a0', 'f-b1', 'f-c1']);
  });

  it("take at most the dialect's events a transaction, the rest in the next", async () => {
    const most = foldedEvents(t.service.storage.db);
    await defineMetric(t.service.storage.db, t.accountId, 'bulk', 'count');
    const customerId = await createCustomer(t);
    const batch = (prefix: string, size: number): SentUsageEvent[] =>
      Array.from({ length: size }, (_, i) => sentEvent(customerId, 'bulk', `${prefix}-${i}`));
    // Three calls: the first two fit in a transaction (10 events short of it), the third does not.
    const calls = [batch('k0', most - 60), batch('k1', 50), batch('k2', 60)];
    const { behind, inserts } = await behindAHeldCall(batch('k-first', 1), calls);
    for (const [i, answer] of behind.entries()) {
      expect((answer as { outcomes: UsageEventOutcome[] }).outcomes.map((o) => o.status)).toEqual(
        Array(calls[i]!.length).fill('accepted'),
      );
    }
    // PostgreSQL: an insert a transaction. SQLite (100 a transaction), an insert per chunk of rows: 90 rows as 64,
    // 16, 8 and 2, then 60 as 32, 16, 8 and 4. Each call alone would make 9, all three together 4.
    expect(inserts).toBe(dialect === 'postgres' ? 2 : 8);
  });

  it("fail alone: a call refused whole leaves the others' events recorded", async () => {
    const db = t.service.storage.db;
    const huge = await defineMetric(db, t.accountId, 'huge', 'sum', { property: 'n' });
    await defineMetric(db, t.accountId, 'pings', 'count');
    const customerId = await createCustomer(t);
    // An instant of this hour, so that every huge event falls in one hour's rollup.
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1_000).toISOString();
    const hugeEvent = (transactionId: string) =>
      sentEvent(customerId, 'huge', transactionId, { n: 1_000_000_000 }, hour);
    const ping = (transactionId: string) => sentEvent(customerId, 'pings', transactionId);
    const seeded = await sendInUsageTurn(
      new CustomerQueue({ waitingPerCustomer: 1, waitingPerAccount: 1, lockTimeoutMs: 5_000 }),
      ctx,
      [hugeEvent('h-0')],
    );
    expect(seeded).toEqual([{ status: 'accepted', eventId: expect.any(Number) }]);
    // As in usageStore.test.ts: the stored total moved by hand to where one more event's 10^13 passes 2^63 − 1.
    const nearMax = 9_223_372_036_854_775_807n - 9_999_999_999_999n;
    await db
      .updateTable('usage_rollups')
      .set({ value_sum: nearMax })
      .where('account_id', '=', t.accountId)
      .where('metric_id', '=', huge.id)
      .execute();

    const { first, behind } = await behindAHeldCall(
      [ping('h-p0')],
      [[ping('h-p1'), hugeEvent('h-1')], [ping('h-p2')]],
    );
    expect(first).toEqual({ outcomes: [{ status: 'accepted', eventId: expect.any(Number) }] });
    expect(behind[0]).toMatchObject({ error: { code: 'usage_total_too_large' } });
    expect(behind[1]).toEqual({ outcomes: [{ status: 'accepted', eventId: expect.any(Number) }] });

    const listed = await t.request('GET', `/v1/customers/${customerId}/usage-events`);
    const recorded = listed.body.map((e: { transaction_id: string }) => e.transaction_id).sort();
    expect(recorded).toEqual(['h-0', 'h-p0', 'h-p2']);
    const total = await db
      .selectFrom('usage_rollups')
      .select((eb) => eb.cast<string>('value_sum', 'text').as('sum'))
      .where('account_id', '=', t.accountId)
      .where('metric_id', '=', huge.id)
      .executeTakeFirstOrThrow();
    expect(total.sum).toBe(String(nearMax));
  });

  it('answer every call with a failure none of them caused, the fold tried once', async () => {
    await defineMetric(t.service.storage.db, t.accountId, 'waits', 'count');
    const customerId = await createCustomer(t);
    const event = (transactionId: string) => sentEvent(customerId, 'waits', transactionId);
    // The database busy, as each driver tells it: SQLite past its busy_timeout, PostgreSQL past its lock_timeout.
    const busy = Object.assign(new Error('the database is busy'), {
      code: dialect === 'postgres' ? '55P03' : 'SQLITE_BUSY',
    });
    const { first, behind, inserts } = await behindAHeldCall(
      [event('w-0')],
      [[event('w-1')], [event('w-2')], [event('w-3')]],
      busy,
    );
    expect(first).toEqual({ outcomes: [{ status: 'accepted', eventId: expect.any(Number) }] });
    for (const answer of behind) expect((answer as { error: unknown }).error).toBe(busy);
    // One attempt for the three calls: split, each would have met the busy database again (1 + 3 attempts).
    expect(inserts).toBe(1);

    const listed = await t.request('GET', `/v1/customers/${customerId}/usage-events`);
    expect(listed.body.map((e: { transaction_id: string }) => e.transaction_id)).toEqual(['w-0']);
  });
});

describe("an account's usage calls in two lanes", () => {
  it('record a second fold while the first is held where there are two (PostgreSQL), a transaction id sent to both once', async () => {
    const db = t.service.storage.db;
    const metric = await defineMetric(db, t.accountId, 'laned', 'unique_count', { property: 'user' });
    const customerId = await createCustomer(t);
    const event = (transactionId: string, user: string) =>
      sentEvent(customerId, 'laned', transactionId, { user });
    const queue = new CustomerQueue({ waitingPerCustomer: 50, waitingPerAccount: 200, lockTimeoutMs: 5_000 });
    const held = holdStatement(insertInto('usage_events'));
    let secondClaimed = false;
    const isClaim = insertInto('usage_transactions');
    const watching: KyselyPlugin = {
      transformQuery({ node }) {
        if (isClaim(node)) secondClaimed = true;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    try {
      const first = sendInUsageTurn(queue, { ...ctx, db: db.withPlugin(held.plugin) }, [
        event('l-1', 'ann'),
        event('l-2', 'bob'),
      ]);
      await held.reached;
      // The same transaction id and the same unique values, in the other order.
      const second = sendInUsageTurn(queue, { ...ctx, db: db.withPlugin(watching) }, [
        event('l-3', 'bob'),
        event('l-1', 'ann'),
      ]);
      if (usageLanes(db) > 1) {
        // The second lane's claims are sent while the first fold holds its own: the claim of l-1 waits for it.
        await eventually(() => (secondClaimed ? true : undefined));
      } else {
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
        expect(secondClaimed).toBe(false);
      }
      held.release();
      const [a, b] = await Promise.all([first, second]);
      expect(a).toEqual([
        { status: 'accepted', eventId: expect.any(Number) },
        { status: 'accepted', eventId: expect.any(Number) },
      ]);
      expect(b).toEqual([
        { status: 'accepted', eventId: expect.any(Number) },
        { status: 'duplicate', eventId: (a[0] as { eventId: number }).eventId },
      ]);
    } finally {
      held.release();
    }
    const listed = await t.request('GET', `/v1/customers/${customerId}/usage-events`);
    expect(listed.body.map((e: { transaction_id: string }) => e.transaction_id).sort()).toEqual([
      'l-1',
      'l-2',
      'l-3',
    ]);
    // Its rollups and unique values are the raw events' (another test moved a rollup of its own by hand).
    const { differences } = await reconcileUsage(db, { accountId: t.accountId, fix: false });
    expect(differences.filter((d) => d.metricId === metric.id)).toEqual([]);
  });
});

describe("an account's usage calls at once, to two processes", () => {
  // Up to four folds of one account at once on PostgreSQL (two lanes in each of two instances), writing the same
  // rollups and unique values, each batch in its own order. NOTE: what keeps them from deadlocking is that
  // usageEvent.repository.ts sorts what they lock; this test would meet a deadlock only by chance (three runs with
  // the rollups and unique values unsorted passed), it checks what concurrent folds record.
  it('are all answered, each transaction id accepted once, the rollups equal to the raw events', async () => {
    const db = t.service.storage.db;
    const metric = await defineMetric(db, t.accountId, 'crowd', 'unique_count', {
      property: 'user',
      groupBy: 'region',
    });
    const customers = [await createCustomer(t), await createCustomer(t), await createCustomer(t)];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const hourAgo = (h: number) => new Date(Date.now() - h * 3_600_000 - random(600_000)).toISOString();
    // 24 batches of 40 events over 480 transaction ids, each id in two batches.
    const events = Array.from({ length: 480 }, (_, i) => ({
      transaction_id: `crowd-${i}`,
      customerID: customers[random(3)]!,
      code: 'crowd',
      timestamp: hourAgo(random(3)),
      properties: { user: `u${random(5)}`, region: ['eu', 'us', 'ap'][random(3)] },
    }));
    const batches = Array.from({ length: 24 }, (_, b) => {
      const own = events.slice((b % 12) * 40, (b % 12) * 40 + 40);
      return [...own].sort(() => random(3) - 1);
    });
    const second = await startAnotherInstance(t);
    try {
      const answers = await Promise.all(
        batches.map((batch, b) =>
          (b % 2 ? second : t).request('POST', '/v1/usage-events/batch', { body: { events: batch } }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      const outcomes = answers.flatMap((a) => a.body.events as { Status: string; transaction_id: string }[]);
      const accepted = outcomes.filter((o) => o.Status === 'accepted').map((o) => o.transaction_id);
      expect(accepted.sort()).toEqual(events.map((e) => e.transaction_id).sort());
      expect(outcomes.filter((o) => o.Status !== 'accepted').every((o) => o.Status === 'duplicate')).toBe(
        true,
      );
    } finally {
      await second.close();
    }
    const { differences } = await reconcileUsage(db, { accountId: t.accountId, fix: false });
    expect(differences.filter((d) => d.metricId === metric.id)).toEqual([]);
  });
});

describe('the usage calls waiting in a service', () => {
  it('are its own: another service in the process neither sees them nor records them in its turn', async () => {
    const other = await startFresh({ env: { WORKER_INTERVAL_MS: '3600000' } });
    const db = t.service.storage.db;
    const held = Array.from({ length: usageLanes(db) }, () => holdStatement(insertInto('usage_events')));
    try {
      const otherCtx = await accountContext(other, other.accountId);
      await defineMetric(other.service.storage.db, other.accountId, 'lane', 'count');
      const otherEvent = sentEvent(await createCustomer(other), 'lane', 'own-other');
      // Each service's first account, on a database of its own: the same id, so one line shared by both services
      // would have had the other's turn take this service's waiting call.
      expect(other.accountId).toBe(t.accountId);
      const queue = () =>
        new CustomerQueue({ waitingPerCustomer: 50, waitingPerAccount: 200, lockTimeoutMs: 5_000 });
      const mine = queue();
      const lanes = held.map((h, i) =>
        sendInUsageTurn(mine, { ...ctx, db: db.withPlugin(h.plugin) }, [
          laneEvent(`own-lane-${i}-${crypto.randomUUID()}`),
        ]),
      );
      await Promise.all(held.map((h) => h.reached));
      const waiting = sendInUsageTurn(mine, ctx, [laneEvent(`own-waiting-${crypto.randomUUID()}`)]);
      const line = () => t.service.memory.part(WAITING_CALLS).get(t.accountId);
      await eventually(() => (line()?.length === 1 ? true : undefined));
      expect(other.service.memory.part(WAITING_CALLS).size).toBe(0);
      // The other service's call is recorded in its own turn at once, and leaves this service's call waiting.
      expect(await sendInUsageTurn(queue(), otherCtx, [otherEvent])).toEqual([
        { status: 'accepted', eventId: expect.any(Number) },
      ]);
      expect(line()).toHaveLength(1);
      for (const h of held) h.release();
      for (const answer of [...(await Promise.all(lanes)), await waiting])
        expect(answer).toEqual([{ status: 'accepted', eventId: expect.any(Number) }]);
      expect(line()).toBeUndefined();
    } finally {
      for (const h of held) h.release();
    }
  });
});
