import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  createQueryId,
  sql,
} from 'kysely';
import type { Compilable, CompiledQuery } from 'kysely';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';
import { customerStates } from '../customers/index.ts';
import type { HourRollup, MeteredEvent } from './aggregation.ts';
import type { UsageEvent } from './usageEvent.ts';

// The usage module's writes and reads (docs/design/usage.md, "Storage: summed fast, exact"). Every write of a batch
// is one multi-row statement; rows that lock (transactions, rollups) go in a fixed order so that concurrent batches
// on PostgreSQL wait for each other instead of deadlocking.

/** Rows per multi-row statement: far under SQLite's 32,766 bound parameters. */
const CHUNK = 500;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The customers among `ids` that belong to the account. */
export async function existingCustomers(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom(customerStates(db, accountId))
    .select('customer_id')
    .where('customer_id', 'in', [...new Set(ids)])
    .execute();
  return new Set(rows.map((row) => Number(row.customer_id)));
}

// ---------------------------------------------------------------------------------------------------------------
// The insert path's statements, compiled once (docs/design/usage.md, "Speed (bench:usage)"). NOTE: Kysely parses
// and compiles a multi-row insert anew for every batch, which cost as much as SQLite running it. Here each
// statement is built once per dialect and row count and then run with the rows' values: on PostgreSQL one text
// whatever the rows (arrays unnested), which the pool names and the server plans once; on SQLite one text per
// chunk size (ROW_CHUNKS), which the connection keeps prepared.

/** SQLite's multi-row statements take rows in chunks of these sizes, largest first: few texts, few statements. */
const ROW_CHUNKS = [100, 64, 32, 16, 8, 4, 2, 1];

/** `rows` cut into chunks of ROW_CHUNKS' sizes, in order. */
function sqliteChunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  let at = 0;
  while (at < rows.length) {
    const size = ROW_CHUNKS.find((n) => n <= rows.length - at)!;
    out.push(rows.slice(at, at + size));
    at += size;
  }
  return out;
}

type Values = readonly unknown[];

/** What a built statement keeps: its text, and its operation node, which the database's plugins are shown. */
type Built = Pick<CompiledQuery, 'sql' | 'query'>;
const built = new Map<string, Built>();

/**
 * Compile-only databases, one per dialect, without connections or plugins. NOTE: a statement built on the caller's
 * database would go through its plugins once when built, and a test's plugin holding the first such statement
 * would take the build for the run; built here, the plugins see each run instead (runBuilt).
 */
const compilers = {
  pg: new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
  sqlite: new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
};

/** The statement `key` (dialect, kind and rows), built by `build` the first time it is asked for. */
function statement(db: Db, key: string, build: (bare: Db) => Compilable<unknown>): Built {
  const dialect = isPostgres(db) ? 'pg' : 'sqlite';
  const full = `${dialect}:${key}`;
  let found = built.get(full);
  if (found === undefined) {
    const { sql: text, query } = build(compilers[dialect]).compile();
    found = { sql: text, query };
    built.set(full, found);
  }
  return found;
}

/**
 * Runs a built statement with `parameters`, in the order its text takes them. Its node goes through the
 * database's plugins as a built query's would (a test holds a statement's answer through one).
 */
async function runBuilt<R>(db: Db, { sql: text, query }: Built, parameters: Values): Promise<R[]> {
  const queryId = createQueryId();
  const executor = db.getExecutor();
  const node = executor.transformQuery(query, queryId);
  const result = await executor.executeQuery<R>({ sql: text, query: node, queryId, parameters });
  return result.rows;
}

/** `(?, ?, …), (…)` for `rows` rows of `width` values: placeholders only, the values come at run time. */
function valuesList(rows: number, width: number) {
  const row = sql`(${sql.join(Array.from({ length: width }, () => sql`${null}`))})`;
  return sql`values ${sql.join(Array.from({ length: rows }, () => row))}`;
}

/** `select … from unnest($1::type[], …)` for columns of these types, in order of the arrays. */
function unnested(
  columns: readonly (readonly [name: string, type: string])[],
  scalars: readonly string[] = [],
) {
  const arrays = columns.map(([, type]) => sql`${null}::${sql.raw(type)}[]`);
  const scalarValues = scalars.map((type) => sql`${null}::${sql.raw(type)}`);
  const names = sql.raw(columns.map(([name]) => name).join(', '));
  return sql`select ${sql.join([...scalarValues, names])} from unnest(${sql.join(arrays)}) with ordinality as u(${names}, n) order by n`;
}

/** The arrays of `rows`' columns (each row's values in column order), for an unnested statement. */
function columnArrays(rows: readonly Values[], width: number): unknown[][] {
  const arrays: unknown[][] = Array.from({ length: width }, () => new Array<unknown>(rows.length));
  rows.forEach((row, i) => {
    for (let c = 0; c < width; c++) arrays[c]![i] = row[c];
  });
  return arrays;
}

const CLAIM_COLUMNS = [
  ['transaction_id', 'text'],
  ['customer_id', 'bigint'],
  ['occurred_at', 'timestamptz'],
] as const;

function claimStatement(db: Db, rows: number): Built {
  return statement(db, `claim:${rows}`, (bare) => {
    const insert = bare
      .insertInto('usage_transactions')
      .columns(['account_id', 'transaction_id', 'customer_id', 'occurred_at']);
    return (
      isPostgres(bare)
        ? insert.expression(unnested(CLAIM_COLUMNS, ['bigint']))
        : insert.expression(valuesList(rows, 4))
    )
      .onConflict((oc) => oc.columns(['account_id', 'transaction_id']).doNothing())
      .returning(['id', 'transaction_id']);
  });
}

/**
 * Claims each transaction id for a new event: the ids claimed now, with their event ids. One already claimed (by
 * an earlier batch, or a concurrent one that committed first) is left out: a duplicate, decided here.
 */
export async function claimTransactions(
  db: Db,
  accountId: number,
  claims: readonly { transactionId: string; customerId: number; occurredAt: string }[],
): Promise<Map<string, number>> {
  const claimed = new Map<string, number>();
  if (claims.length === 0) return claimed;
  const sorted = [...claims].sort((a, b) => (a.transactionId < b.transactionId ? -1 : 1));
  const rows = sorted.map((c): Values => [c.transactionId, c.customerId, c.occurredAt]);
  const found: { id: number | string; transaction_id: string }[] = [];
  if (isPostgres(db)) {
    found.push(
      ...(await runBuilt<(typeof found)[number]>(db, claimStatement(db, 0), [
        accountId,
        ...columnArrays(rows, 3),
      ])),
    );
  } else {
    for (const chunk of sqliteChunks(rows)) {
      const parameters = chunk.flatMap((row) => [accountId, ...row]);
      found.push(
        ...(await runBuilt<(typeof found)[number]>(db, claimStatement(db, chunk.length), parameters)),
      );
    }
  }
  for (const row of found) claimed.set(row.transaction_id, Number(row.id));
  return claimed;
}

/** The event ids of transaction ids already claimed. */
export async function claimedTransactions(
  db: Db,
  accountId: number,
  transactionIds: readonly string[],
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const chunk of chunks([...new Set(transactionIds)])) {
    const rows = await db
      .selectFrom('usage_transactions')
      .select(['id', 'transaction_id'])
      .where('account_id', '=', accountId)
      .where('transaction_id', 'in', chunk)
      .execute();
    for (const row of rows) found.set(row.transaction_id, Number(row.id));
  }
  return found;
}

/** An event to store, its metric's reading of it done. */
export interface EventToStore {
  id: number;
  customerId: number;
  subscriptionId: number | null;
  metricId: number;
  transactionId: string;
  occurredAt: string;
  properties: Readonly<Record<string, unknown>>;
  counted: boolean;
  value: bigint;
  unique: string;
  group: string;
}

/** An event's columns after account_id, in order; received_at last. */
const EVENT_COLUMNS_IN = [
  ['id', 'bigint'],
  ['customer_id', 'bigint'],
  ['subscription_id', 'bigint'],
  ['metric_id', 'bigint'],
  ['transaction_id', 'text'],
  ['occurred_at', 'timestamptz'],
  ['properties', 'text'],
  ['counted', 'boolean'],
  ['value', 'bigint'],
  ['unique_value', 'text'],
  ['group_value', 'text'],
] as const;

function eventsStatement(db: Db, rows: number): Built {
  return statement(db, `events:${rows}`, (bare) => {
    const insert = bare
      .insertInto('usage_events')
      .columns(['account_id', 'received_at', ...EVENT_COLUMNS_IN.map(([name]) => name)]);
    return isPostgres(bare)
      ? insert.expression(unnested(EVENT_COLUMNS_IN, ['bigint', 'timestamptz']))
      : insert.expression(valuesList(rows, EVENT_COLUMNS_IN.length + 2));
  });
}

/** The events of one account received at one instant. */
export async function insertEvents(
  db: Db,
  accountId: number,
  receivedAt: string,
  events: readonly EventToStore[],
): Promise<void> {
  const rows = events.map((e): Values => [
    e.id,
    e.customerId,
    e.subscriptionId,
    e.metricId,
    e.transactionId,
    e.occurredAt,
    JSON.stringify(e.properties),
    e.counted,
    e.value,
    e.unique,
    e.group,
  ]);
  if (rows.length === 0) return;
  if (isPostgres(db)) {
    await runBuilt(db, eventsStatement(db, 0), [
      accountId,
      receivedAt,
      ...columnArrays(rows, EVENT_COLUMNS_IN.length),
    ]);
    return;
  }
  for (const chunk of sqliteChunks(rows)) {
    await runBuilt(
      db,
      eventsStatement(db, chunk.length),
      chunk.flatMap((row) => [accountId, receivedAt, ...row]),
    );
  }
}

/** Whose events an hour's rollup adds up: subscription 0 holds the customer's events that name none. */
export interface RollupKey {
  customerId: number;
  subscriptionId: number;
  metricId: number;
  group: string;
}

export type RollupToStore = RollupKey & { rollup: HourRollup };

const keyOrder = (a: RollupToStore, b: RollupToStore): number =>
  a.customerId - b.customerId ||
  a.subscriptionId - b.subscriptionId ||
  a.metricId - b.metricId ||
  (a.group < b.group ? -1 : a.group > b.group ? 1 : 0) ||
  a.rollup.hour - b.rollup.hour;

const ROLLUP_KEY_COLUMNS = [
  'account_id',
  'customer_id',
  'subscription_id',
  'metric_id',
  'group_value',
  'hour',
] as const;

/** A rollup's columns after account_id, in order. */
const ROLLUP_COLUMNS_IN = [
  ['customer_id', 'bigint'],
  ['subscription_id', 'bigint'],
  ['metric_id', 'bigint'],
  ['group_value', 'text'],
  ['hour', 'timestamptz'],
  ['event_count', 'bigint'],
  ['value_sum', 'bigint'],
  ['value_max', 'bigint'],
  ['latest_value', 'bigint'],
  ['latest_at', 'timestamptz'],
  ['latest_id', 'bigint'],
  ['weighted_seconds', 'bigint'],
] as const;

function rollupsStatement(db: Db, rows: number): Built {
  return statement(db, `rollups:${rows}`, (bare) => {
    // NOTE: PostgreSQL's two-argument maximum is greatest(); SQLite's is max().
    const greatest = isPostgres(bare) ? sql.raw('greatest') : sql.raw('max');
    const later = sql`(excluded.latest_at > usage_rollups.latest_at or (excluded.latest_at = usage_rollups.latest_at and excluded.latest_id > usage_rollups.latest_id))`;
    const insert = bare
      .insertInto('usage_rollups')
      .columns(['account_id', ...ROLLUP_COLUMNS_IN.map(([name]) => name)]);
    // NOTE: SQLite reads `insert … select … on conflict` as a join's ON unless the select has a WHERE; its rows come
    // as a values list, which needs none.
    return (
      isPostgres(bare)
        ? insert.expression(unnested(ROLLUP_COLUMNS_IN, ['bigint']))
        : insert.expression(valuesList(rows, ROLLUP_COLUMNS_IN.length + 1))
    ).onConflict((oc) =>
      oc.columns(ROLLUP_KEY_COLUMNS).doUpdateSet({
        event_count: sql`usage_rollups.event_count + excluded.event_count`,
        value_sum: sql`usage_rollups.value_sum + excluded.value_sum`,
        value_max: sql`${greatest}(usage_rollups.value_max, excluded.value_max)`,
        latest_value: sql`case when ${later} then excluded.latest_value else usage_rollups.latest_value end`,
        latest_at: sql`case when ${later} then excluded.latest_at else usage_rollups.latest_at end`,
        latest_id: sql`case when ${later} then excluded.latest_id else usage_rollups.latest_id end`,
        weighted_seconds: sql`usage_rollups.weighted_seconds + excluded.weighted_seconds`,
      }),
    );
  });
}

/**
 * Adds a batch's rollups to the stored ones, never read-modify-write: one upsert whose update merges as
 * mergeRollups does (aggregation.ts). weighted_sum is kept in value × whole seconds (the events' times are whole
 * seconds for it, usageEvent.service.ts), so the column holds weightedOffsets / 1000 exactly. At most one rollup
 * per key and hour: an upsert may not touch a row twice.
 */
export async function addRollups(
  db: Db,
  accountId: number,
  rollups: readonly RollupToStore[],
): Promise<void> {
  if (rollups.length === 0) return;
  const rows = [...rollups]
    .sort(keyOrder)
    .map(({ customerId, subscriptionId, metricId, group, rollup }): Values => [
      customerId,
      subscriptionId,
      metricId,
      group,
      iso(rollup.hour),
      rollup.count,
      rollup.sum,
      rollup.max ?? 0n,
      rollup.latest?.value ?? 0n,
      iso(rollup.latest?.at ?? rollup.hour),
      rollup.latest?.id ?? 0,
      rollup.weightedOffsets / 1000n,
    ]);
  if (isPostgres(db)) {
    await runBuilt(db, rollupsStatement(db, 0), [accountId, ...columnArrays(rows, ROLLUP_COLUMNS_IN.length)]);
    return;
  }
  for (const chunk of sqliteChunks(rows)) {
    await runBuilt(
      db,
      rollupsStatement(db, chunk.length),
      chunk.flatMap((row) => [accountId, ...row]),
    );
  }
}

/** A unique value's columns after account_id, in order. */
const UNIQUE_COLUMNS_IN = [
  ['customer_id', 'bigint'],
  ['subscription_id', 'bigint'],
  ['metric_id', 'bigint'],
  ['group_value', 'text'],
  ['hour', 'timestamptz'],
  ['unique_value', 'text'],
] as const;

function uniquesStatement(db: Db, rows: number): Built {
  return statement(db, `uniques:${rows}`, (bare) => {
    const insert = bare
      .insertInto('usage_unique_values')
      .columns(['account_id', ...UNIQUE_COLUMNS_IN.map(([name]) => name)]);
    return (
      isPostgres(bare)
        ? insert.expression(unnested(UNIQUE_COLUMNS_IN, ['bigint']))
        : insert.expression(valuesList(rows, UNIQUE_COLUMNS_IN.length + 1))
    ).onConflict((oc) => oc.doNothing());
  });
}

export async function addUniqueValues(
  db: Db,
  accountId: number,
  values: readonly (RollupKey & { hour: number; value: string })[],
): Promise<void> {
  if (values.length === 0) return;
  const rows = values.map((v): Values => [
    v.customerId,
    v.subscriptionId,
    v.metricId,
    v.group,
    iso(v.hour),
    v.value,
  ]);
  if (isPostgres(db)) {
    await runBuilt(db, uniquesStatement(db, 0), [accountId, ...columnArrays(rows, UNIQUE_COLUMNS_IN.length)]);
    return;
  }
  for (const chunk of sqliteChunks(rows)) {
    await runBuilt(
      db,
      uniquesStatement(db, chunk.length),
      chunk.flatMap((row) => [accountId, ...row]),
    );
  }
}

/** Whose events a read adds up: `subscriptionId` null reads the customer's events that name no subscription. */
export interface UsageScope {
  customerId: number;
  subscriptionId: number | null;
  metricId: number;
}

/** A rollup's columns, its 64-bit figures read as text (exact past 2^53 on both dialects). */
export const ROLLUP_COLUMNS = [
  'group_value',
  'hour',
  'event_count',
  sql<string>`cast(value_sum as text)`.as('value_sum'),
  sql<string>`cast(value_max as text)`.as('value_max'),
  sql<string>`cast(latest_value as text)`.as('latest_value'),
  'latest_at',
  'latest_id',
  sql<string>`cast(weighted_seconds as text)`.as('weighted_seconds'),
] as const;

export function rollupFromRow(row: {
  hour: string;
  event_count: number;
  value_sum: string;
  value_max: string;
  latest_value: string;
  latest_at: string;
  latest_id: number;
  weighted_seconds: string;
}): HourRollup {
  return {
    hour: Date.parse(row.hour),
    count: Number(row.event_count),
    sum: BigInt(row.value_sum),
    max: BigInt(row.value_max),
    latest: { value: BigInt(row.latest_value), at: Date.parse(row.latest_at), id: Number(row.latest_id) },
    weightedOffsets: BigInt(row.weighted_seconds) * 1000n,
    uniques: new Set<string>(),
  };
}

/** The stored rollups of the hours [fromHour, toHour), with their groups (uniques are read apart). */
export async function rollupsOfHours(
  db: Db,
  accountId: number,
  scope: UsageScope,
  fromHour: number,
  toHour: number,
): Promise<{ group: string; rollup: HourRollup }[]> {
  const rows = await db
    .selectFrom('usage_rollups')
    .select(ROLLUP_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', scope.customerId)
    .where('subscription_id', '=', scope.subscriptionId ?? 0)
    .where('metric_id', '=', scope.metricId)
    .where('hour', '>=', iso(fromHour))
    .where('hour', '<', iso(toHour))
    .execute();
  return rows.map((row) => ({ group: row.group_value, rollup: rollupFromRow(row) }));
}

/** The distinct values unique_count counts over the hours [fromHour, toHour), per group. */
export async function uniqueValuesOfHours(
  db: Db,
  accountId: number,
  scope: UsageScope,
  fromHour: number,
  toHour: number,
): Promise<{ group: string; value: string }[]> {
  const rows = await db
    .selectFrom('usage_unique_values')
    .select(['group_value', 'unique_value'])
    .distinct()
    .where('account_id', '=', accountId)
    .where('customer_id', '=', scope.customerId)
    .where('subscription_id', '=', scope.subscriptionId ?? 0)
    .where('metric_id', '=', scope.metricId)
    .where('hour', '>=', iso(fromHour))
    .where('hour', '<', iso(toHour))
    .execute();
  return rows.map((row) => ({ group: row.group_value, value: row.unique_value }));
}

/** The counted events inside any of `ranges` (each [from, to), ms), as the metric reads them. */
export async function countedEventsIn(
  db: Db,
  accountId: number,
  scope: UsageScope,
  ranges: readonly { from: number; to: number }[],
): Promise<{ group: string; event: MeteredEvent }[]> {
  // NOTE: one statement per range: ORed together, neither database serves the ranges from the (account, customer,
  // time) index and every event of the customer is read.
  const perRange = await Promise.all(
    ranges.map((range) => countedEventsInRange(db, accountId, scope, range)),
  );
  return perRange.flat();
}

async function countedEventsInRange(
  db: Db,
  accountId: number,
  scope: UsageScope,
  range: { from: number; to: number },
): Promise<{ group: string; event: MeteredEvent }[]> {
  const rows = await db
    .selectFrom('usage_events')
    .select([
      'id',
      'occurred_at',
      sql<string>`cast(value as text)`.as('value'),
      'unique_value',
      'group_value',
    ])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', scope.customerId)
    .where((eb) =>
      scope.subscriptionId === null
        ? eb('subscription_id', 'is', null)
        : eb('subscription_id', '=', scope.subscriptionId),
    )
    .where('metric_id', '=', scope.metricId)
    .where('counted', '=', true)
    .where('occurred_at', '>=', iso(range.from))
    .where('occurred_at', '<', iso(range.to))
    .execute();
  return rows.map((row) => ({
    group: row.group_value,
    event: {
      id: Number(row.id),
      at: Date.parse(row.occurred_at),
      value: BigInt(row.value),
      unique: row.unique_value,
    },
  }));
}

export function usageEventFromRow(row: {
  id: number;
  transaction_id: string;
  customer_id: number;
  subscription_id: number | null;
  metric_id: number;
  occurred_at: string;
  properties: string;
  counted: boolean | number;
  received_at: string;
}): UsageEvent {
  return {
    id: Number(row.id),
    transactionId: row.transaction_id,
    customerId: Number(row.customer_id),
    subscriptionId: row.subscription_id === null ? null : Number(row.subscription_id),
    metricId: Number(row.metric_id),
    occurredAt: row.occurred_at,
    properties: JSON.parse(row.properties) as Record<string, unknown>,
    counted: Boolean(row.counted),
    receivedAt: row.received_at,
  };
}

const EVENT_COLUMNS = [
  'usage_events.id',
  'usage_events.transaction_id',
  'usage_events.customer_id',
  'usage_events.subscription_id',
  'usage_events.metric_id',
  'usage_events.occurred_at',
  'usage_events.properties',
  'usage_events.counted',
  'usage_events.received_at',
] as const;

/** The stored events of these transaction ids, found through their claims (which hold where each event is). */
export async function eventsOfTransactions(
  db: Db,
  accountId: number,
  transactionIds: readonly string[],
): Promise<UsageEvent[]> {
  if (transactionIds.length === 0) return [];
  const rows = await db
    .selectFrom('usage_transactions')
    .innerJoin('usage_events', (join) =>
      join
        .onRef('usage_events.account_id', '=', 'usage_transactions.account_id')
        .onRef('usage_events.customer_id', '=', 'usage_transactions.customer_id')
        .onRef('usage_events.occurred_at', '=', 'usage_transactions.occurred_at')
        .onRef('usage_events.id', '=', 'usage_transactions.id'),
    )
    .select(EVENT_COLUMNS)
    .where('usage_transactions.account_id', '=', accountId)
    .where('usage_transactions.transaction_id', 'in', [...new Set(transactionIds)])
    .execute();
  return rows.map(usageEventFromRow);
}

/** Which of a customer's events a list reads: [from, to) (either open), of one metric or all. */
export interface EventFilter {
  customerId: number;
  from: string | null;
  to: string | null;
  metricId: number | null;
}

function customerEvents(db: Db, accountId: number, filter: EventFilter) {
  let query = db
    .selectFrom('usage_events')
    .select(EVENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', filter.customerId);
  if (filter.from !== null) query = query.where('occurred_at', '>=', filter.from);
  if (filter.to !== null) query = query.where('occurred_at', '<', filter.to);
  if (filter.metricId !== null) query = query.where('metric_id', '=', filter.metricId);
  return query;
}

/** A page of a customer's events, in time order (then id). */
export async function listCustomerEvents(
  db: Db,
  accountId: number,
  filter: EventFilter,
  page: { limit: number; offset: number },
): Promise<UsageEvent[]> {
  const rows = await customerEvents(db, accountId, filter)
    .orderBy('occurred_at')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(usageEventFromRow);
}

/** The next `limit` of a customer's events after `after` in time order (then id): for reading all in bounded memory. */
export async function customerEventsAfter(
  db: Db,
  accountId: number,
  filter: EventFilter,
  after: { occurredAt: string; id: number } | null,
  limit: number,
): Promise<UsageEvent[]> {
  let query = customerEvents(db, accountId, filter);
  if (after !== null) {
    // The plain bound lets the (account, customer, occurred_at) index start at the last chunk's time: the OR alone
    // would scan from the range's start for every chunk.
    query = query
      .where('occurred_at', '>=', after.occurredAt)
      .where((eb) =>
        eb.or([
          eb('occurred_at', '>', after.occurredAt),
          eb.and([eb('occurred_at', '=', after.occurredAt), eb('id', '>', after.id)]),
        ]),
      );
  }
  const rows = await query.orderBy('occurred_at').orderBy('id').limit(limit).execute();
  return rows.map(usageEventFromRow);
}
