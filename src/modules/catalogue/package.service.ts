import { childrenByParent } from '../../core/groupBy.ts';
import { inTransaction, nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import * as repo from './package.repository.ts';
import type { VersionScope } from './package.repository.ts';
import type {
  Package,
  PackageFields,
  PackageRecord,
  PackageVersion,
  PackageVersionRecord,
} from './package.ts';
import { assertPackageGroupExists } from './packageGroup.service.ts';
import { checkedVersion } from './packageInput.ts';
import type { VersionInput } from './packageInput.ts';
import { changeVersions, deleteItemWithVersions } from './versioning.service.ts';
import type { VersionedKind } from './versioning.service.ts';

export type { Package, PackageVersion, RateTerm, VersionRate } from './package.ts';

export interface PackageInput {
  packageGroupId: number;
  packageCode: string;
  name: string;
  /** Undefined keeps the description on edit (none on create); null or blank clears it. */
  descrip?: string | null;
  isActive: boolean;
}

/**
 * Subscriptions on each version of a package, ended ones included (they still refer to the version: its id, its
 * rate term), counted by the flows that change it (src/flows/packageChanges.ts): subscriptions sit above the
 * catalogue. A version with any can be neither deleted nor re-priced.
 */
export type SubscriptionsByVersion = ReadonlyMap<number, number>;

/** The ids of the package's versions: what the flows count subscriptions on. */
export async function packageVersionIds(ctx: ServiceContext, packageId: number): Promise<number[]> {
  return (await repo.listVersionsOfPackage(ctx.db, ctx.account.id, packageId)).map((v) => v.id);
}

/** Versions with their rates and terms, one statement a level for every version in `scope`. */
export async function assembleVersions(
  ctx: ServiceContext,
  versions: PackageVersionRecord[],
  scope: VersionScope,
): Promise<PackageVersion[]> {
  if (versions.length === 0) return [];
  const ratesOf = childrenByParent(
    await repo.listRates(ctx.db, ctx.account.id, scope),
    (r) => r.packageVersionId,
  );
  const termsOf = childrenByParent(await repo.listTerms(ctx.db, ctx.account.id, scope), (t) => t.rateId);
  return versions.map((v) => ({
    ...v,
    rates: ratesOf(v.id).map(({ packageVersionId: _version, ...rate }) => ({
      ...rate,
      terms: termsOf(rate.id),
    })),
  }));
}

/** Packages with all their versions, rates and terms: four statements whatever their number. */
async function assemblePackages(ctx: ServiceContext, packages: PackageRecord[]): Promise<Package[]> {
  const packageIds = packages.map((pkg) => pkg.id);
  const versions = await repo.listVersionsOfPackages(ctx.db, ctx.account.id, packageIds);
  const versionsOf = childrenByParent(
    await assembleVersions(ctx, versions, { packageIds }),
    (v) => v.packageId,
  );
  return packages.map((pkg) => ({ ...pkg, versions: versionsOf(pkg.id) }));
}

export async function findPackageOrThrow(ctx: ServiceContext, packageId: number): Promise<PackageRecord> {
  const pkg = await repo.findPackage(ctx.db, ctx.account.id, packageId);
  if (!pkg) throw new NotFoundError('Package', packageId);
  return pkg;
}

export const packageRef = (id: number) => ({ type: 'package', id });
export const packageVersionRef = (id: number) => ({ type: 'package_version', id });

/** Packages as the steps they share with components see them (versioning.service.ts). */
export const PACKAGES: VersionedKind<PackageVersionRecord> = {
  table: 'packages',
  name: 'Package',
  itemRef: packageRef,
  versionRef: packageVersionRef,
  listVersions: (db, accountId, packageId) => repo.listVersionsOfPackage(db, accountId, packageId),
};

/** The names of the account's packages with these ids, which the bill run prints on its lines. */
export function packageNamesByIds(
  ctx: ServiceContext,
  packageIds: number[],
): Promise<{ id: number; name: string }[]> {
  return repo.listPackageNames(ctx.db, ctx.account.id, packageIds);
}

/**
 * Whether the rate of each package rate term given sets its prices to include tax (null: the account's default),
 * read when billing so that a line says how it was priced (docs/pricing.md, "Tax-inclusive prices").
 */
export function rateTermsTaxInclusion(
  ctx: ServiceContext,
  rateTermIds: number[],
): Promise<{ id: number; isTaxInclusive: boolean | null }[]> {
  return repo.listRateTermTaxInclusion(ctx.db, ctx.account.id, rateTermIds);
}

/** The account's packages with these ids, by id, as GET /v1/packages/{id} shows them. */
export async function packagesByIds(
  ctx: ServiceContext,
  packageIds: readonly number[],
): Promise<Map<number, Package>> {
  const packages = await assemblePackages(ctx, await repo.findPackages(ctx.db, ctx.account.id, packageIds));
  return new Map(packages.map((pkg) => [pkg.id, pkg]));
}

/** The account's package versions with these ids (packageVersionID), by id. */
export async function packageVersionsByIds(
  ctx: ServiceContext,
  versionIds: readonly number[],
): Promise<Map<number, PackageVersion>> {
  const records = await repo.findVersions(ctx.db, ctx.account.id, versionIds);
  const versions = await assembleVersions(ctx, records, { versionIds: records.map((v) => v.id) });
  return new Map(versions.map((version) => [version.id, version]));
}

export async function getPackage(ctx: ServiceContext, packageId: number): Promise<Package> {
  return (await assemblePackages(ctx, [await findPackageOrThrow(ctx, packageId)]))[0]!;
}

export async function listPackages(ctx: ServiceContext, page: Page): Promise<Package[]> {
  return assemblePackages(ctx, await repo.listPackages(ctx.db, ctx.account.id, page));
}

async function checkedPackage(
  ctx: ServiceContext,
  input: PackageInput,
  packageId?: number,
): Promise<PackageFields> {
  const problems: FieldProblem[] = [];
  const changes: PackageFields = {
    packageGroupId: input.packageGroupId,
    packageCode: requiredText(input.packageCode, 'packageCode', problems),
    name: requiredText(input.name, 'Name', problems),
    isActive: input.isActive,
  };
  const descrip = optionalText(input.descrip);
  if (descrip !== undefined) changes.descrip = descrip;
  if (problems.length) throw new ValidationError(problems);
  await assertPackageGroupExists(ctx, input.packageGroupId, 'packageGroupID');
  const holder = await repo.findPackageIdByCode(ctx.db, ctx.account.id, changes.packageCode);
  if (holder && holder.id !== packageId) throw codeTaken(changes.packageCode);
  return changes;
}

function codeTaken(code: string): ConflictError {
  return new ConflictError('package_code_taken', `packageCode "${code}" belongs to another package`);
}

/**
 * Spec: the package comes with its first version, VersionNo 1, which is the default whatever isDefault says:
 * a package always has exactly one default version.
 */
export async function createPackage(
  ctx: ServiceContext,
  input: PackageInput,
  versionInput: VersionInput,
): Promise<Package> {
  const pkg = await checkedPackage(ctx, input);
  const version = await checkedVersion(ctx, versionInput, 'PackageVersion.');
  const now = nowInstant(ctx);
  let packageId: number;
  try {
    packageId = await ctx.db.transaction().execute(async (trx) => {
      const id = await repo.insertPackage(trx, {
        ...pkg,
        accountId: ctx.account.id,
        lastVersionNo: 1,
        createdAt: now,
      });
      const versionId = await repo.insertVersion(trx, {
        accountId: ctx.account.id,
        packageId: id,
        versionNo: 1,
        versionName: version.versionName,
        isDefault: true,
        isActive: version.isActive,
        createdAt: now,
      });
      await repo.insertRates(trx, ctx.account.id, versionId, version.rates);
      await emitEvents(inTransaction(ctx, trx), [
        { type: 'package.created', ref: packageRef(id) },
        { type: 'package_version.created', ref: packageVersionRef(versionId) },
      ]);
      return id;
    });
  } catch (error) {
    // Another request took the code between our check and the insert.
    throw isUniqueViolation(error) ? codeTaken(pkg.packageCode) : error;
  }
  return getPackage(ctx, packageId);
}

/** Spec: PUT changes packageGroupID, packageCode, Name, Descrip and isActive; versions are edited on their own. */
export async function editPackage(
  ctx: ServiceContext,
  packageId: number,
  input: PackageInput,
): Promise<void> {
  await findPackageOrThrow(ctx, packageId);
  const changes = await checkedPackage(ctx, input, packageId);
  try {
    await withTransaction(ctx, async (tctx) => {
      const before = await snapshotResource(tctx, packageRef(packageId));
      if (!(await repo.updatePackage(tctx.db, ctx.account.id, packageId, changes))) {
        throw new NotFoundError('Package', packageId);
      }
      await emitEvent(tctx, 'package.updated', packageRef(packageId), { before });
    });
  } catch (error) {
    throw isUniqueViolation(error) ? codeTaken(changes.packageCode) : error;
  }
}

/**
 * A package with subscriptions on any version cannot be deleted (409): make it inactive instead.
 * `subscriptionsByVersion`: counted by the flow that deletes it, in the same transaction.
 */
export async function deletePackageRecord(
  ctx: ServiceContext,
  packageId: number,
  subscriptionsByVersion: SubscriptionsByVersion,
): Promise<void> {
  await changeVersions(ctx, PACKAGES, packageId, async (trx, versions) => {
    const subscriptions = versions.reduce((sum, v) => sum + (subscriptionsByVersion.get(v.id) ?? 0), 0);
    if (subscriptions > 0) {
      throw new ConflictError(
        'package_in_use',
        `Package ${packageId} has ${subscriptions} subscription(s); make it inactive instead`,
      );
    }
    await deleteItemWithVersions(ctx, trx, PACKAGES, packageId, versions);
  });
}
