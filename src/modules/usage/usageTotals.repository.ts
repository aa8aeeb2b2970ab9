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
  const rows = await db
    .selectFrom('usage_rollups')
    .select(['group_value', sql<string>`cast(sum(value_sum) as text)`.as('total')])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', scope.customerId)
    .where('subscription_id', '=', scope.subscriptionId ?? 0)
    .where('metric_id', '=', scope.metricId)
    .where('hour', '>=', new Date(fromHour).toISOString())
    .where('hour', '<', new Date(toHour).toISOString())
    .groupBy('group_value')
    .execute();
  return rows.map((row) => ({ group: row.group_value, sum: BigInt(row.total) }));
}
