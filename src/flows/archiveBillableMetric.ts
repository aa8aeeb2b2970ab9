import { withTransaction } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import { archiveBillableMetricRecord, componentIdsOfMetric } from '../modules/catalogue/index.ts';
import { countSubscriptionsByComponent } from '../modules/subscriptions/index.ts';

/**
 * DELETE /v1/billable-metrics/{id} (docs/architecture.md, "Flows"): in one transaction, the subscriptions carrying
 * each component linked to the metric counted (subscriptions sit above the catalogue), then the catalogue's archive,
 * which refuses (409 `billable_metric_in_use`) while a linked component is active or carried.
 */
export async function archiveBillableMetric(ctx: ServiceContext, metricId: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const components = await componentIdsOfMetric(tctx, metricId);
    const subscriptions = await countSubscriptionsByComponent(tctx, components);
    await archiveBillableMetricRecord(tctx, metricId, subscriptions);
  });
}
