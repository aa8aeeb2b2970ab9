import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { customerStates } from '../customers/index.ts';
import type { HourRollup, MeteredEvent } from './aggregation.ts';
import type { UsageEvent } from './usageEvent.ts';
import { CLAIMS, EVENTS, ROLLUPS, UNIQUE_VALUES, writeRows } from './usageEventStatements.ts';
import type { Values } from './usageEventStatements.ts';

// The usage module's writes and reads (docs/design/usage.md, "Storage: summed fast, exact"). Every write of a batch
// is one multi-row statement, compiled once (usageEventStatements.ts); rows that lock (transactions, rollups) go in
// a fixed order so that concurrent batches on PostgreSQL wait for each other instead of deadlocking.

/** Rows per multi-row statement: far under SQLite's 32,766 bound parameters. */
const CHUNK = 500;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Text in code-unit order, one order for every process. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

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

/**
 * Claims each transaction id for a new event: the ids claimed now, with their event ids. One already claimed (by
 * an earlier batch, or a concurrent one that committed first) is left out: a duplicate, decided here.
 */
export async function claimTransactions(
  db: Db,
  accountId: number,
  claims: readonly { transactionId: string; customerId: number; occurredAt: string }[],
): Promise<Map<string, number>> {
  const sorted = [...claims].sort((a, b) => byText(a.transactionId, b.transactionId));
  const rows = sorted.map((c): Values => [c.transactionId, c.customerId, c.occurredAt]);
  const found = await writeRows<{ id: number | string; transaction_id: string }>(
    db,
    CLAIMS,
    [accountId],
    rows,
  );
  return new Map(found.map((row) => [row.transaction_id, Number(row.id)]));
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

/** An event's place in the (account, customer, time) index. */
const indexOrder = (a: EventToStore, b: EventToStore): number =>
  a.customerId - b.customerId || byText(a.occurredAt, b.occurredAt);

/**
 * The events of one account received at one instant, in the order of the (account, customer, time) index. NOTE: on
 * SQLite, inserted in the order they came (a customer after another), each entry went to another page of the index;
 * in its order, a customer's go to one page after the other. A benchmark of a fold's own rows (500 events, a hundred
 * customers) took 24–26 µs of CPU an event instead of 29–31; the service, 42.7–42.8 instead of 44.0 (docs/benchmarks.md,
 * "Usage").
 */
export async function insertEvents(
  db: Db,
  accountId: number,
  receivedAt: string,
  events: readonly (EventToStore & { propertiesJson: string })[],
): Promise<void> {
  const rows = [...events]
    .sort(indexOrder)
    .map((e): Values => [
      e.id,
      e.customerId,
      e.subscriptionId,
      e.metricId,
      e.transactionId,
      e.occurredAt,
      e.propertiesJson,
      e.counted,
      e.value,
      e.unique,
      e.group,
    ]);
  await writeRows(db, EVENTS, [accountId, receivedAt], rows);
}

/** Whose events an hour's rollup adds up: subscription 0 holds the customer's events that name none. */
export interface RollupKey {
  customerId: number;
  subscriptionId: number;
  metricId: number;
  group: string;
}

export type RollupToStore = RollupKey & { rollup: HourRollup };

/** Rollup keys in one order for rollups and unique values: batches writing the same rows wait, never deadlock. */
const keyOrder = (a: RollupKey, b: RollupKey): number =>
  a.customerId - b.customerId ||
  a.subscriptionId - b.subscriptionId ||
  a.metricId - b.metricId ||
  byText(a.group, b.group);

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
  const rows = [...rollups]
    .sort((a, b) => keyOrder(a, b) || a.rollup.hour - b.rollup.hour)
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
  await writeRows(db, ROLLUPS, [accountId], rows);
}

export async function addUniqueValues(
  db: Db,
  accountId: number,
  values: readonly (RollupKey & { hour: number; value: string })[],
): Promise<void> {
  const rows = [...values]
    .sort((a, b) => keyOrder(a, b) || a.hour - b.hour || byText(a.value, b.value))
    .map((v): Values => [v.customerId, v.subscriptionId, v.metricId, v.group, iso(v.hour), v.value]);
  await writeRows(db, UNIQUE_VALUES, [accountId], rows);
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
