import type { ServiceContext } from '../../context.ts';
import { metricsByIds } from '../catalogue/index.ts';
import { usedOfMetric } from '../subscriptions/index.ts';
import type { UsagePeriod } from '../subscriptions/index.ts';

/**
 * What a limit feature's governing subscription has used of its metric in its billing period, over every group:
 * what the bill run will count for that metric when it bills the period (docs/usage.md, "Entitlements"), so that a
 * limit and an invoice never disagree about the same events.
 */
export async function usedInPeriod(
  ctx: ServiceContext,
  subscriptionId: number,
  metricId: number,
  period: UsagePeriod,
): Promise<string> {
  const metric = (await metricsByIds(ctx.db, ctx.account.id, [metricId])).get(metricId);
  if (!metric) return '0';
  return usedOfMetric(ctx, subscriptionId, metric, period);
}
