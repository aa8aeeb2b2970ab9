import Big from 'big.js';
import type { ServiceContext } from '../../context.ts';
import { canonicalDecimal } from '../../core/wireDecimal.ts';
import { metricsByIds } from '../catalogue/index.ts';
import { usageQuantities } from '../usage/index.ts';

/** A subscription's billing period of a limit's metric, as instants. */
export interface UsedQuery {
  customerId: number;
  subscriptionId: number;
  metricId: number;
  /** ISO instants: the period's first day at the account's midnight, and the first day after it. */
  from: string;
  to: string;
}

/**
 * What a limit feature's governing subscription has used of its metric in its billing period: the events naming
 * it, and the customer's events naming no subscription in that period (docs/usage.md, "Entitlements": a limit is
 * the customer's, and one subscription governs a feature, so none is counted twice), over every group.
 */
export async function usedInPeriod(ctx: ServiceContext, q: UsedQuery): Promise<string> {
  const metric = (await metricsByIds(ctx.db, ctx.account.id, [q.metricId])).get(q.metricId);
  if (!metric) return '0';
  const byGroup = await usageQuantities(ctx.db, ctx.account.id, {
    customerId: q.customerId,
    subscriptionId: q.subscriptionId,
    metric,
    from: q.from,
    to: q.to,
    claimed: [{ from: Date.parse(q.from), to: Date.parse(q.to) }],
  });
  const total = [...byGroup.values()].reduce((sum, quantity) => sum.plus(quantity), new Big(0));
  return canonicalDecimal(total);
}
