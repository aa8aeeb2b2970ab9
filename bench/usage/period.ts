/**
 * The usage benchmark's period (bench/usage.ts): one subscription's month of BENCH_USAGE_PERIOD_EVENTS events
 * written straight into the usage tables by one SQL statement each (the way a year of a busy customer's traffic
 * would stand after it was sent), then its aggregate read through the usage module's own `usageQuantities`, the
 * function invoices, previews and current usage call, timed p50 and p99.
 *
 * The rows are what the insert path writes (src/modules/usage/usageEvent.repository.ts): events with their value
 * in ten-thousandths, and one rollup per hour made by GROUP BY over them. Event i of n is at
 * start + ⌊i · span / n⌋ ms, its value (i mod 7) + 1, so the period's sum is known in advance and checked.
 */
import { sql } from 'kysely';
import type { Db } from '../../src/storage/database.ts';
import type { BillableMetric } from '../../src/modules/catalogue/index.ts';
import { usageQuantities } from '../../src/modules/usage/index.ts';
import type { Dialect } from '../common.ts';
import { log, round } from '../common.ts';
import { percentile } from '../harness.ts';

/** October 2026 in UTC: the account's time zone is UTC, so its period bounds are these midnights. */
export const PERIOD = { from: '2026-10-01T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z' };
const START_MS = Date.parse(PERIOD.from);
const SPAN_MS = Date.parse(PERIOD.to) - START_MS;
/** Seeded events' ids start here, far above those the service gives. */
const ID_BASE = 1_000_000_000_000;

export interface PeriodOwner {
  accountId: number;
  customerId: number;
  subscriptionId: number;
  metricId: number;
}

/** The sum of the values (i mod 7) + 1 for i in [0, n), in units. */
export function expectedSum(n: number): bigint {
  const full = BigInt(Math.floor(n / 7));
  const rest = n % 7;
  return full * 28n + BigInt((rest * (rest + 1)) / 2);
}

/** Writes the events and their hourly rollups; returns the seconds each took. */
export async function seedPeriod(
  db: Db,
  dialect: Dialect,
  owner: PeriodOwner,
  n: number,
): Promise<{ eventsSeconds: number; rollupsSeconds: number }> {
  const started = performance.now();
  if (dialect === 'postgres') await seedPostgresEvents(db, owner, n);
  else await seedSqliteEvents(db, owner, n);
  const eventsSeconds = (performance.now() - started) / 1000;
  log(`${dialect}: ${n} events written in ${eventsSeconds.toFixed(1)} s; rolling them up by the hour`);
  const rolled = performance.now();
  if (dialect === 'postgres') await rollUpPostgres(db, owner);
  else await rollUpSqlite(db, owner);
  return {
    eventsSeconds: round(eventsSeconds, 1),
    rollupsSeconds: round((performance.now() - rolled) / 1000, 1),
  };
}

async function seedSqliteEvents(db: Db, o: PeriodOwner, n: number): Promise<void> {
  // NOTE: instants are ISO text on SQLite (src/storage/columns.ts); built from whole ms so that none is rounded.
  await sql`
    with recursive s(i) as (select 0 union all select i + 1 from s where i + 1 < ${n})
    insert into usage_events (id, account_id, customer_id, subscription_id, metric_id, transaction_id,
      occurred_at, properties, counted, value, unique_value, group_value, received_at)
    select ${ID_BASE} + i, ${o.accountId}, ${o.customerId}, ${o.subscriptionId}, ${o.metricId}, 'seed-' || i,
      strftime('%Y-%m-%dT%H:%M:%S', t / 1000, 'unixepoch') || '.' || printf('%03d', t % 1000) || 'Z',
      '{"tokens":' || ((i % 7) + 1) || '}', 1, ((i % 7) + 1) * 10000, '', '', ${PERIOD.to}
    from (select i, ${START_MS} + (i * ${SPAN_MS}) / ${n} as t from s)`.execute(db);
}

async function seedPostgresEvents(db: Db, o: PeriodOwner, n: number): Promise<void> {
  // NOTE: the month's partition (and the next), named as the insert path names them (usagePartitions.ts).
  for (const [month, from, to] of [
    ['2026_10', '2026-10-01', '2026-11-01'],
    ['2026_11', '2026-11-01', '2026-12-01'],
  ]) {
    await sql
      .raw(
        `create table if not exists usage_events_${month} partition of usage_events ` +
          `for values from ('${from}T00:00:00Z') to ('${to}T00:00:00Z')`,
      )
      .execute(db);
  }
  await sql`
    insert into usage_events (id, account_id, customer_id, subscription_id, metric_id, transaction_id,
      occurred_at, properties, counted, value, unique_value, group_value, received_at)
    select ${ID_BASE} + i, ${o.accountId}, ${o.customerId}, ${o.subscriptionId}, ${o.metricId}, 'seed-' || i,
      to_timestamp((${START_MS}::bigint + (i * ${SPAN_MS}::bigint) / ${n}) / 1000.0),
      '{"tokens":' || ((i % 7) + 1) || '}', true, ((i % 7) + 1) * 10000, '', '', ${PERIOD.to}::timestamptz
    from generate_series(0::bigint, ${n - 1}::bigint) as i`.execute(db);
}

async function rollUpSqlite(db: Db, o: PeriodOwner): Promise<void> {
  await sql`
    insert into usage_rollups (account_id, customer_id, subscription_id, metric_id, group_value, hour,
      event_count, value_sum, value_max, latest_value, latest_at, latest_id, weighted_seconds)
    select account_id, customer_id, subscription_id, metric_id, group_value,
      substr(occurred_at, 1, 13) || ':00:00.000Z', count(*), sum(value), max(value),
      ((max(id) - ${ID_BASE}) % 7 + 1) * 10000, max(occurred_at), max(id),
      sum(value * (cast(substr(occurred_at, 15, 2) as integer) * 60 + cast(substr(occurred_at, 18, 2) as integer)))
    from usage_events
    where account_id = ${o.accountId} and customer_id = ${o.customerId} and id >= ${ID_BASE}
    group by account_id, customer_id, subscription_id, metric_id, group_value, substr(occurred_at, 1, 13)`.execute(
    db,
  );
}

async function rollUpPostgres(db: Db, o: PeriodOwner): Promise<void> {
  await sql`
    insert into usage_rollups (account_id, customer_id, subscription_id, metric_id, group_value, hour,
      event_count, value_sum, value_max, latest_value, latest_at, latest_id, weighted_seconds)
    select account_id, customer_id, subscription_id, metric_id, group_value, date_trunc('hour', occurred_at),
      count(*), sum(value), max(value), ((max(id) - ${ID_BASE}) % 7 + 1) * 10000, max(occurred_at), max(id),
      sum(value * floor(extract(epoch from occurred_at - date_trunc('hour', occurred_at))))::bigint
    from usage_events
    where account_id = ${o.accountId} and customer_id = ${o.customerId} and id >= ${ID_BASE}
    group by account_id, customer_id, subscription_id, metric_id, group_value, date_trunc('hour', occurred_at)`.execute(
    db,
  );
}

export interface AggregateFigures {
  events: number;
  runs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The same read with bounds at :30, so that two edge hours come from raw events. */
  offHourP50Ms: number;
  offHourP99Ms: number;
  quantity: string;
  expected: string;
}

async function timedRuns(runs: number, read: () => Promise<unknown>): Promise<Float64Array> {
  for (let i = 0; i < 5; i += 1) await read();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
  }
  return Float64Array.from(times).sort();
}

/** The period's aggregate read `runs` times (after 5 not counted), and once more at :30 bounds. */
export async function measureAggregate(
  db: Db,
  owner: PeriodOwner,
  metric: BillableMetric,
  n: number,
  runs: number,
): Promise<AggregateFigures> {
  const query = (from: string, to: string) =>
    usageQuantities(db, owner.accountId, {
      customerId: owner.customerId,
      subscriptionId: owner.subscriptionId,
      metric,
      from,
      to,
      claimed: [],
    });
  const whole = await timedRuns(runs, () => query(PERIOD.from, PERIOD.to));
  const halfHour = 30 * 60_000;
  const offFrom = new Date(START_MS + halfHour).toISOString();
  const offTo = new Date(START_MS + SPAN_MS - halfHour).toISOString();
  const off = await timedRuns(Math.max(5, Math.round(runs / 4)), () => query(offFrom, offTo));
  const quantity = (await query(PERIOD.from, PERIOD.to)).get('') ?? 'none';
  return {
    events: n,
    runs,
    p50Ms: round(percentile(whole, 50), 2),
    p99Ms: round(percentile(whole, 99), 2),
    maxMs: round(whole[whole.length - 1] ?? 0, 2),
    offHourP50Ms: round(percentile(off, 50), 2),
    offHourP99Ms: round(percentile(off, 99), 2),
    quantity,
    expected: expectedSum(n).toString(),
  };
}
