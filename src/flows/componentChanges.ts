import { withTransaction } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import {
  componentVersionIds,
  deleteComponentRecord,
  deleteComponentVersionRecord,
  editComponentRecord,
} from '../modules/catalogue/index.ts';
import type { ComponentInput } from '../modules/catalogue/index.ts';
import {
  countSubscriptionsByComponentVersion,
  countSubscriptionsWithComponent,
} from '../modules/subscriptions/index.ts';

/**
 * The changes of a component that subscriptions carrying it keep from happening (docs/architecture.md, "Flows"):
 * in one transaction, the subscriptions (above the catalogue) counted, ended ones included, then the catalogue's
 * step, which refuses with its 409 while any does. The foreign keys of subscriptions' components stay the backstop.
 */

/** PUT /v1/components/{id}: its MetricCode does not change while subscriptions carry it. */
export async function editComponent(
  ctx: ServiceContext,
  componentId: number,
  input: ComponentInput,
): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const subscriptions = await countSubscriptionsWithComponent(tctx, { componentId });
    await editComponentRecord(tctx, componentId, input, subscriptions);
  });
}

/** DELETE /v1/components/{id}: 409 `component_in_use` while subscriptions carry it. */
export async function deleteComponent(ctx: ServiceContext, componentId: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const subscriptions = await countSubscriptionsWithComponent(tctx, { componentId });
    await deleteComponentRecord(tctx, componentId, subscriptions);
  });
}

/** DELETE /v1/components/{id}/versions/{no}: 409 `component_version_in_use` while subscriptions carry it. */
export async function deleteComponentVersion(
  ctx: ServiceContext,
  componentId: number,
  versionNo: number,
): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const versionIds = await componentVersionIds(tctx, componentId);
    const subscriptions = await countSubscriptionsByComponentVersion(tctx, versionIds);
    await deleteComponentVersionRecord(tctx, componentId, versionNo, subscriptions);
  });
}
