import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { UsageScope } from './usageEvent.repository.ts';

// A read for weighted_sum's total carried into a period (usageQuantities.service.ts): the sum of every stored hour
// before it, added up by the database, one row per group, however long the history (docs/design/usage.md,
// "Storage: summed fast, exact").

/** Σ value over the stored hours [fromHour, toHour) of one scope, per group, in ten-thousandths. */
export async function sumOfHours(
  db: Db,
  accountId: number,
  scope: UsageScope,
  fromHour: number,
  toHour: number,
): Promise<{ group: string; sum: bigint }[]> {
  try {
    const rows = await hoursOf(db, accountId, scope, fromHour, toHour)
      .select(['group_value', sql<string>`cast(sum(value_sum) as text)`.as('total')])
      .groupBy('group_value')
      .execute();
    return rows.map((row) => ({ group: row.group_value, sum: BigInt(row.total) }));
  } catch (error) {
    if (!isSqliteIntegerOverflow(error)) throw error;
  }
  // Each hour's sum is within 64 bits, their total need not be: SQLite's sum() of integers then fails where
  // PostgreSQL's (a numeric) does not. Rare, so the hours are read and added up exactly here instead.
  const hours = await hoursOf(db, accountId, scope, fromHour, toHour)
    .select(['group_value', sql<string>`cast(value_sum as text)`.as('value')])
    .execute();
  const sums = new Map<string, bigint>();
  for (const hour of hours)
    sums.set(hour.group_value, (sums.get(hour.group_value) ?? 0n) + BigInt(hour.value));
  return [...sums].map(([group, sum]) => ({ group, sum }));
}

function hoursOf(db: Db, accountId: number, scope: UsageScope, fromHour: number, toHour: number) {
  return db
    .selectFrom('usage_rollups')
    .where('account_id', '=', accountId)
    .where('customer_id', '=', scope.customerId)
    .where('subscription_id', '=', scope.subscriptionId ?? 0)
    .where('metric_id', '=', scope.metricId)
    .where('hour', '>=', new Date(fromHour).toISOString())
    .where('hour', '<', new Date(toHour).toISOString());
}

/** better-sqlite3's error for a sum() of integers past 64 bits. */
function isSqliteIntegerOverflow(error: unknown): boolean {
  return error instanceof Error && error.message === 'integer overflow';
}
