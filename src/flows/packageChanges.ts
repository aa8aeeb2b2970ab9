import { withTransaction } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import {
  deletePackageRecord,
  deletePackageVersionRecord,
  editPackageVersionRecord,
  packageVersionIds,
} from '../modules/catalogue/index.ts';
import type { PackageVersionInput, SubscriptionsByVersion } from '../modules/catalogue/index.ts';
import { countSubscriptionsByPackageVersion } from '../modules/subscriptions/index.ts';

/**
 * The changes of a package that subscriptions on its versions keep from happening (docs/architecture.md, "Flows"):
 * in one transaction, the subscriptions on each version counted (subscriptions sit above the catalogue), ended ones
 * included, then the catalogue's step, which refuses with its 409 while a version it touches has any. The foreign
 * keys of subscriptions to package versions stay the backstop.
 */

/** DELETE /v1/packages/{id}: 409 `package_in_use` while any version has subscriptions. */
export async function deletePackage(ctx: ServiceContext, packageId: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    await deletePackageRecord(tctx, packageId, await subscriptionsOfVersions(tctx, packageId));
  });
}

/** PUT /v1/packages/{id}/versions/{no}: a version with subscriptions keeps its prices (409 `version_in_use`). */
export async function editPackageVersion(
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
  input: PackageVersionInput,
): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const subscriptions = await subscriptionsOfVersions(tctx, packageId);
    await editPackageVersionRecord(tctx, packageId, versionNo, input, subscriptions);
  });
}

/** DELETE /v1/packages/{id}/versions/{no}: 409 `version_in_use` while it has subscriptions. */
export async function deletePackageVersion(
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const subscriptions = await subscriptionsOfVersions(tctx, packageId);
    await deletePackageVersionRecord(tctx, packageId, versionNo, subscriptions);
  });
}

async function subscriptionsOfVersions(
  ctx: ServiceContext,
  packageId: number,
): Promise<SubscriptionsByVersion> {
  return countSubscriptionsByPackageVersion(ctx, await packageVersionIds(ctx, packageId));
}
