import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { HourRollup } from './aggregation.ts';
import { ROLLUP_COLUMNS, rollupFromRow } from './usageEvent.repository.ts';
import type { RollupKey } from './usageEvent.repository.ts';

// What `billing reconcile-usage` reads and rewrites (docs/usage.md, "Sending events"): an account's raw events,
// and its rollups and unique values whole.

/** The accounts that have usage events. */
export async function accountsWithUsage(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('usage_transactions').select('account_id').distinct().execute();
  return rows.map((row) => Number(row.account_id)).sort((a, b) => a - b);
}

/** A counted event, with the key of the rollup it belongs to. */
export interface CountedEvent extends RollupKey {
  id: number;
  occurredAt: string;
  value: bigint;
  unique: string;
}

/** The next `limit` counted events of the account after `after`, in (customer, time, id) order. */
export async function countedEventsAfter(
  db: Db,
  accountId: number,
  after: { customerId: number; occurredAt: string; id: number } | null,
  limit: number,
): Promise<CountedEvent[]> {
  let query = db
    .selectFrom('usage_events')
    .select([
      'id',
      'customer_id',
      'subscription_id',
      'metric_id',
      'group_value',
      'occurred_at',
      sql<string>`cast(value as text)`.as('value'),
      'unique_value',
    ])
    .where('account_id', '=', accountId)
    .where('counted', '=', true);
  if (after !== null) {
    // The plain bound lets the index start at the last chunk's customer (the OR alone scans from the first).
    query = query
      .where('customer_id', '>=', after.customerId)
      .where((eb) =>
        eb.or([
          eb('customer_id', '>', after.customerId),
          eb.and([eb('customer_id', '=', after.customerId), eb('occurred_at', '>', after.occurredAt)]),
          eb.and([
            eb('customer_id', '=', after.customerId),
            eb('occurred_at', '=', after.occurredAt),
            eb('id', '>', after.id),
          ]),
        ]),
      );
  }
  const rows = await query.orderBy('customer_id').orderBy('occurred_at').orderBy('id').limit(limit).execute();
  return rows.map((row) => ({
    id: Number(row.id),
    customerId: Number(row.customer_id),
    subscriptionId: row.subscription_id === null ? 0 : Number(row.subscription_id),
    metricId: Number(row.metric_id),
    group: row.group_value,
    occurredAt: row.occurred_at,
    value: BigInt(row.value),
    unique: row.unique_value,
  }));
}

export async function allRollups(db: Db, accountId: number): Promise<(RollupKey & { rollup: HourRollup })[]> {
  const rows = await db
    .selectFrom('usage_rollups')
    .select([...ROLLUP_COLUMNS, 'customer_id', 'subscription_id', 'metric_id'])
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((row) => ({
    customerId: Number(row.customer_id),
    subscriptionId: Number(row.subscription_id),
    metricId: Number(row.metric_id),
    group: row.group_value,
    rollup: rollupFromRow(row),
  }));
}

export async function allUniqueValues(
  db: Db,
  accountId: number,
): Promise<(RollupKey & { hour: number; value: string })[]> {
  const rows = await db
    .selectFrom('usage_unique_values')
    .select(['customer_id', 'subscription_id', 'metric_id', 'group_value', 'hour', 'unique_value'])
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((row) => ({
    customerId: Number(row.customer_id),
    subscriptionId: Number(row.subscription_id),
    metricId: Number(row.metric_id),
    group: row.group_value,
    hour: Date.parse(row.hour),
    value: row.unique_value,
  }));
}

/** Removes the account's rollups and unique values, to write them anew from its events. */
export async function deleteRollups(db: Db, accountId: number): Promise<void> {
  await db.deleteFrom('usage_rollups').where('account_id', '=', accountId).execute();
  await db.deleteFrom('usage_unique_values').where('account_id', '=', accountId).execute();
}

/**
 * Holds every insert of usage events, rollups and unique values until the transaction ends, and waits for those
 * under way to commit, so that the events read next are all the events and the rollups written from them are not
 * changed in between. PostgreSQL: SHARE locks, which conflict with the inserts' ROW EXCLUSIVE (every account's
 * inserts wait, for as long as one account's rollups take to write). SQLite: the transaction began IMMEDIATE and
 * already holds the database's write lock (docs/architecture.md, "Locks").
 */
export async function holdUsageInserts(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`lock table usage_events, usage_rollups, usage_unique_values in share mode`.execute(db);
}
