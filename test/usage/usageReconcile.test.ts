import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BillableMetric, MetricAggregation } from '../../src/modules/catalogue/index.ts';
import {
  aggregate,
  quantityText,
  readEvent,
  reconcileUsage,
  rollUp,
  usageQuantities,
} from '../../src/modules/usage/index.ts';
import type { MeteredEvent, UsageEventInput } from '../../src/modules/usage/index.ts';
import type { Db } from '../../src/storage/database.ts';
import { isPostgres } from '../../src/storage/columns.ts';
import { sql } from 'kysely';
import { createCustomer } from '../helpers/billing.ts';
import { runCli } from '../helpers/cli.ts';
import { startAnotherInstance } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { defineMetric, recordEvents, usageAccount } from './usage.fixtures.ts';

// Rollups kept by the insert equal what the raw events add up to, whatever is sent and re-sent; reconcile-usage
// finds and fixes a rollup changed by hand; two instances sending the same events count each once.

let db: Db;
const NOW = '2026-11-20T12:00:00.000Z';
const DAY = Date.parse('2026-11-20T00:00:00.000Z');

const t = useTestService();
beforeAll(async () => {
  db = t.service.storage.db;
});

const AGGREGATIONS: MetricAggregation[] = ['count', 'sum', 'max', 'unique_count', 'latest', 'weighted_sum'];

/** A fresh account with one metric of each aggregation (property `n`, `user` for unique_count) and a customer. */
async function meteredAccount() {
  const as = await t.newAccount();
  const customerId = await createCustomer(as);
  const metrics: BillableMetric[] = [];
  for (const aggregation of AGGREGATIONS) {
    const property = aggregation === 'count' ? undefined : aggregation === 'unique_count' ? 'user' : 'n';
    metrics.push(await defineMetric(db, as.accountId, aggregation, aggregation, { property, groupBy: 'g' }));
  }
  return { accountId: as.accountId, customerId, metrics };
}

const PERIOD = { from: '2026-11-20T00:20:00.000Z', to: '2026-11-20T05:40:00.000Z' };

/**
 * The reference: a metric's quantity per group straight from the accepted events (aggregation.ts over them all,
 * no rollups stored), weighted_sum's events at their whole second and its total carried from those before.
 */
function fromRawEvents(
  metric: BillableMetric,
  accepted: (UsageEventInput & { id: number })[],
  period: { from: string; to: string },
): Record<string, string> {
  const interval = { from: Date.parse(period.from), to: Date.parse(period.to) };
  const byGroup = new Map<string, { inside: MeteredEvent[]; carried: bigint; before: boolean }>();
  for (const e of accepted.filter((a) => a.code === metric.code)) {
    const reading = readEvent(metric, e.properties);
    if (!('counts' in reading) || !reading.counts) continue;
    const ms = Date.parse(e.timestamp);
    const at = metric.aggregation === 'weighted_sum' ? Math.floor(ms / 1000) * 1000 : ms;
    const group = byGroup.get(reading.group) ?? { inside: [], carried: 0n, before: false };
    byGroup.set(reading.group, group);
    if (at < interval.from) {
      group.carried += reading.value;
      group.before = true;
    } else if (at < interval.to)
      group.inside.push({ id: e.id, at, value: reading.value, unique: reading.unique });
  }
  // A group has a line when events of it fall in the period, or, for weighted_sum, before it (its carried total).
  const lined = [...byGroup].filter(
    ([, g]) => g.inside.length > 0 || (metric.aggregation === 'weighted_sum' && g.before),
  );
  return Object.fromEntries(
    lined.map(([group, { inside, carried }]) => [
      group,
      quantityText(aggregate(metric.aggregation, rollUp(inside), interval, carried)),
    ]),
  );
}

const arbitraryEvents = fc.array(
  fc.record({
    tx: fc.integer({ min: 0, max: 40 }),
    metric: fc.constantFrom(...AGGREGATIONS),
    second: fc.integer({ min: 0, max: 6 * 3600 - 1 }),
    ms: fc.integer({ min: 0, max: 999 }),
    n: fc.integer({ min: -1_000_000, max: 1_000_000 }),
    user: fc.constantFrom('a', 'b', 'c'),
    g: fc.constantFrom('eu', 'us'),
  }),
  { minLength: 1, maxLength: 40 },
);

describe('rollups and raw events', () => {
  it('agree after any batches, and re-sending a batch changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryEvents, fc.integer({ min: 1, max: 10 }), async (drawn, batchSize) => {
        const { accountId, customerId, metrics } = await meteredAccount();
        const events: UsageEventInput[] = drawn.map((e) => ({
          transactionId: `tx-${e.tx}`,
          customerId,
          subscriptionId: null,
          code: e.metric,
          timestamp: new Date(DAY + e.second * 1000 + e.ms).toISOString(),
          // Values in ten-thousandths of a unit: n / 10,000 has up to 4 decimals.
          properties: { n: (e.n / 10_000).toFixed(4), user: e.user, g: e.g },
        }));
        const batches = Array.from({ length: Math.ceil(events.length / batchSize) }, (_, i) =>
          events.slice(i * batchSize, (i + 1) * batchSize),
        );
        const outcomes: Awaited<ReturnType<typeof recordEvents>> = [];
        for (const batch of batches)
          outcomes.push(...(await recordEvents(db, usageAccount(accountId), NOW, batch)));
        expect((await reconcileUsage(db, { accountId, fix: false })).differences).toEqual([]);
        const accepted = events.flatMap((e, i) => {
          const outcome = outcomes[i]!;
          return outcome.status === 'accepted' ? [{ ...e, id: outcome.eventId }] : [];
        });

        // A period with partial first and last hours, over everything sent.
        const quantities = () =>
          Promise.all(
            metrics.map(async (metric) =>
              Object.fromEntries(
                await usageQuantities(db, accountId, {
                  customerId,
                  subscriptionId: 1,
                  metric,
                  ...PERIOD,
                  claimed: [{ from: DAY, to: DAY + 86_400_000 }],
                }),
              ),
            ),
          );
        const before = await quantities();
        expect(before).toEqual(metrics.map((metric) => fromRawEvents(metric, accepted, PERIOD)));
        const again = await recordEvents(db, usageAccount(accountId), NOW, batches[0]!);
        expect(again.every((o) => o.status === 'duplicate')).toBe(true);
        expect(await quantities()).toEqual(before);
        expect((await reconcileUsage(db, { accountId, fix: false })).differences).toEqual([]);
      }),
      { numRuns: 12 },
    );
  });
});

describe('billing reconcile-usage', () => {
  it('reports a rollup changed by hand, exits 1, and --fix writes it anew from the events', async () => {
    const { accountId, customerId } = await meteredAccount();
    await recordEvents(db, usageAccount(accountId), NOW, [
      {
        transactionId: 'r1',
        customerId,
        subscriptionId: null,
        code: 'sum',
        timestamp: '2026-11-20T10:10:00Z',
        properties: { n: 2 },
      },
      {
        transactionId: 'r2',
        customerId,
        subscriptionId: null,
        code: 'sum',
        timestamp: '2026-11-20T10:20:00Z',
        properties: { n: 3 },
      },
    ]);
    await db
      .updateTable('usage_rollups')
      .set({ value_sum: 1n })
      .where('account_id', '=', accountId)
      .execute();

    const found = await runCli(['reconcile-usage', '--account', String(accountId)], t.env, 60_000);
    expect(found.code, found.stderr).toBe(1);
    expect(found.stdout).toContain('hour 2026-11-20T10:00:00.000Z: stored count=2 sum=1 ');
    expect(found.stdout).toContain('events give count=2 sum=50000 ');
    expect(found.stdout).toContain('Checked 2 event(s) of 1 account(s): 1 difference(s).');

    const fixed = await runCli(['reconcile-usage', '--account', String(accountId), '--fix'], t.env, 60_000);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain('1 difference(s), fixed.');
    const clean = await runCli(['reconcile-usage', '--account', String(accountId), '--json'], t.env, 60_000);
    expect(clean.code, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual({ accounts: 1, events: 2, differences: [], fixed: false });
  });
});

describe('reconcile-usage --fix while events are being sent', () => {
  it('writes the rollups of every event, also of those whose insert was under way', async () => {
    const { accountId, customerId } = await meteredAccount();
    const event = (transactionId: string, n: number, minute: number) => ({
      transactionId,
      customerId,
      subscriptionId: null,
      code: 'sum',
      timestamp: `2026-11-20T10:${String(minute).padStart(2, '0')}:00Z`,
      properties: { n },
    });
    await recordEvents(db, usageAccount(accountId), NOW, [event('w1', 2, 10)]);
    await db
      .updateTable('usage_rollups')
      .set({ value_sum: 1n })
      .where('account_id', '=', accountId)
      .execute();

    // A batch is being stored (its transaction open, its rollup row taken) when the fix starts: the fix must wait
    // for it and write its events too. On SQLite the batch holds the database's write lock, so the fix runs after.
    let fixing: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      await recordEvents(trx, usageAccount(accountId), NOW, [event('w2', 3, 20), event('w3', 4, 30)]);
      if (!isPostgres(db)) return;
      fixing = reconcileUsage(db, { accountId, fix: true });
      // The fix has read the events committed so far and waits on a lock the batch holds: commit then.
      for (;;) {
        const waiting = await sql<{ n: number }>`
          select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
          where not l.granted and a.datname = current_database() and a.query like '%usage_%'`.execute(db);
        if (waiting.rows[0]!.n > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    if (fixing) await fixing;
    else await reconcileUsage(db, { accountId, fix: true });

    const after = await reconcileUsage(db, { accountId, fix: false });
    expect(after.events).toBe(3);
    expect(after.differences).toEqual([]);
  });
});

describe('two instances of the service', () => {
  // Ten batches of 50 over 300 transaction ids, each sent to both instances at once: 1,000 sends, 300 events.
  it('count each transaction id once when both receive the same batches at once', async () => {
    const second = await startAnotherInstance(t);
    try {
      const main = await createCustomer(t);
      await defineMetric(db, t.accountId, 'concurrent', 'sum', { property: 'n' });
      const batches = Array.from({ length: 10 }, (_, b) => ({
        events: Array.from({ length: 50 }, (_, i) => ({
          transaction_id: `c-${(b * 50 + i) % 300}`,
          customerID: main,
          code: 'concurrent',
          properties: { n: 1 },
        })),
      }));
      const answers = await Promise.all(
        batches.flatMap((body) => [
          t.request('POST', '/v1/usage-events/batch', { body }),
          second.request('POST', '/v1/usage-events/batch', { body }),
        ]),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      const accepted = answers
        .flatMap((a) => a.body.events)
        .filter((o: { Status: string }) => o.Status === 'accepted');
      expect(accepted).toHaveLength(300);
      const listed = await t.request(
        'GET',
        `/v1/customers/${main}/usage-events?page_size=200&code=concurrent`,
      );
      const more = await t.request(
        'GET',
        `/v1/customers/${main}/usage-events?page=2&page_size=200&code=concurrent`,
      );
      expect(listed.body.length + more.body.length).toBe(300);
      expect((await reconcileUsage(db, { accountId: t.accountId, fix: false })).differences).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
