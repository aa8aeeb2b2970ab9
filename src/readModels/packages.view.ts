import type { ServiceContext } from '../context.ts';
import { toPackageDto, toPackageVersionDto } from '../modules/catalogue/index.ts';
import type { Package, PackageVersion } from '../modules/catalogue/index.ts';
import { countLiveSubscriptionsByPackageVersion } from '../modules/subscriptions/index.ts';

/**
 * Spec, SubscriptionCount: per package version, its subscriptions in force today (future and active ones; not those
 * cancelled or expired by today), by version id. A figure of subscriptions that the catalogue's versions show:
 * one statement for every version of a page.
 */
export function packageSubscriptionCounts(
  ctx: ServiceContext,
  versionIds: number[],
): Promise<Map<number, number>> {
  if (versionIds.length === 0) return Promise.resolve(new Map());
  return countLiveSubscriptionsByPackageVersion(ctx, versionIds);
}

/** Packages as GET /v1/packages shows them, each version with its SubscriptionCount. */
export async function packagesOut(ctx: ServiceContext, packages: Package[]) {
  const counts = await packageSubscriptionCounts(
    ctx,
    packages.flatMap((pkg) => pkg.versions.map((version) => version.id)),
  );
  return packages.map((pkg) => toPackageDto(pkg, counts));
}

/** Package versions as GET /v1/packages/{id}/versions shows them, each with its SubscriptionCount. */
export async function packageVersionsOut(ctx: ServiceContext, versions: PackageVersion[]) {
  const counts = await packageSubscriptionCounts(
    ctx,
    versions.map((version) => version.id),
  );
  return versions.map((version) => toPackageVersionDto(version, counts));
}

/** One package as GET /v1/packages/{id} shows it. */
export async function packageOut(ctx: ServiceContext, pkg: Package) {
  return toPackageDto(
    pkg,
    await packageSubscriptionCounts(
      ctx,
      pkg.versions.map((version) => version.id),
    ),
  );
}

/** One package version as GET /v1/packages/{id}/versions/{no} shows it. */
export async function packageVersionOut(ctx: ServiceContext, version: PackageVersion) {
  return toPackageVersionDto(version, await packageSubscriptionCounts(ctx, [version.id]));
}
