import type { ServiceContext } from '../../context.ts';

/**
 * Subscriptions carrying each of these component versions, ended ones included (their usage refers to it): what
 * the flows that delete a component version ask first (src/flows/componentChanges.ts).
 */
export function countSubscriptionsByComponentVersion(
  ctx: ServiceContext,
  versionIds: readonly number[],
): Promise<Map<number, number>> {
  return countDistinct(ctx, 'component_version_id', versionIds);
}

/**
 * Subscriptions carrying each of these components, ended ones included: what archiving a billable metric linked
 * to them asks first (src/flows/archiveBillableMetric.ts).
 */
export function countSubscriptionsByComponent(
  ctx: ServiceContext,
  componentIds: readonly number[],
): Promise<Map<number, number>> {
  return countDistinct(ctx, 'component_id', componentIds);
}

async function countDistinct(
  ctx: ServiceContext,
  column: 'component_id' | 'component_version_id',
  ids: readonly number[],
): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('subscription_components')
    .select((eb) => [
      eb.ref(column).as('key'),
      eb.fn.count<number | string>('subscription_id').distinct().as('n'),
    ])
    .where('account_id', '=', ctx.account.id)
    .where(column, 'in', [...new Set(ids)])
    .groupBy(column)
    .execute();
  return new Map(rows.map((row) => [Number(row.key), Number(row.n)]));
}
