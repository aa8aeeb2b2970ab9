import Big from 'big.js';
import { inTransaction, nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Page } from '../../core/paging.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import * as repo from './package.repository.ts';
import type { PackageVersionRecord, RateTerm, VersionRateRecord } from './package.ts';
import { PACKAGES, assembleVersions, findPackageOrThrow, packageVersionRef } from './package.service.ts';
import type { PackageVersion, SubscriptionsByVersion } from './package.service.ts';
import { checkedVersion } from './packageInput.ts';
import type { CheckedVersion, VersionInput } from './packageInput.ts';
import { takeNextVersionNo } from './versioning.repository.ts';
import {
  changeVersions,
  defaultMoveSnapshots,
  deleteVersionOf,
  updatedEvents,
} from './versioning.service.ts';
import { assertEditKeepsDefault, assertVersionDeletable, newVersionIsDefault } from './versionRules.ts';
import type { VersionConflicts } from './versionRules.ts';

const CONFLICTS: VersionConflicts = {
  inactiveDefault: () =>
    new ConflictError(
      'default_version_inactive',
      "The package's default version must be active while the package has other versions",
    ),
  defaultRequired: (versionNo, change) =>
    new ConflictError(
      'default_version_required',
      `Version ${versionNo} is the package's default version and cannot be ${change} while the package has ` +
        'other versions; make another version the default first',
    ),
  lastVersion: (versionNo) =>
    new ConflictError(
      'last_version',
      `Version ${versionNo} is the package's only version; delete the package instead`,
    ),
};

function versionNotFound(packageId: number, versionNo: number): NotFoundError {
  return new NotFoundError('Package version', `${versionNo} of package ${packageId}`);
}

function versionIn(
  versions: PackageVersionRecord[],
  packageId: number,
  versionNo: number,
): PackageVersionRecord {
  const version = versions.find((v) => v.versionNo === versionNo);
  if (!version) throw versionNotFound(packageId, versionNo);
  return version;
}

export async function listPackageVersions(
  ctx: ServiceContext,
  packageId: number,
  page: Page,
): Promise<PackageVersion[]> {
  await findPackageOrThrow(ctx, packageId);
  const versions = await repo.listVersionsOfPackage(ctx.db, ctx.account.id, packageId, page);
  return assembleVersions(ctx, versions, { versionIds: versions.map((v) => v.id) });
}

export async function getVersion(
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
): Promise<PackageVersion> {
  await findPackageOrThrow(ctx, packageId);
  const version = await repo.findVersionByNo(ctx.db, ctx.account.id, packageId, versionNo);
  if (!version) throw versionNotFound(packageId, versionNo);
  return (await assembleVersions(ctx, [version], { versionIds: [version.id] }))[0]!;
}

/**
 * Spec: the new version gets the next VersionNo (never one given before, deleted versions included). With
 * isDefault true it becomes the default and the former default stops being one.
 */
export async function createVersion(
  ctx: ServiceContext,
  packageId: number,
  input: VersionInput,
): Promise<PackageVersion> {
  await findPackageOrThrow(ctx, packageId);
  const version = await checkedVersion(ctx, input, '');
  const versionNo = await changeVersions(ctx, PACKAGES, packageId, async (trx, versions) => {
    const isDefault = newVersionIsDefault(versions, version, CONFLICTS);
    const tctx = inTransaction(ctx, trx);
    // The new version's id is not known yet: any id but the former default's moves the default.
    const moved = isDefault ? await defaultMoveSnapshots(tctx, PACKAGES, packageId, versions, 0) : [];
    const no = await takeNextVersionNo(trx, 'packages', ctx.account.id, packageId);
    const versionId = await repo.insertVersion(trx, {
      accountId: ctx.account.id,
      packageId,
      versionNo: no,
      versionName: version.versionName,
      isDefault,
      isActive: version.isActive,
      createdAt: nowInstant(ctx),
    });
    if (isDefault) await repo.clearDefaultVersion(trx, ctx.account.id, packageId, versionId);
    await repo.insertRates(trx, ctx.account.id, versionId, version.rates);
    await emitEvents(tctx, [
      { type: 'package_version.created', ref: packageVersionRef(versionId) },
      ...updatedEvents(moved),
    ]);
    return no;
  });
  return getVersion(ctx, packageId, versionNo);
}

/** Whether the checked rates are the version's stored rates and terms, decimals compared by value. */
function samePrices(
  stored: VersionRateRecord[],
  storedTerms: RateTerm[],
  rates: CheckedVersion['rates'],
): boolean {
  const termKey = (price: string, count: number, type: string) =>
    `${new Big(price).toFixed()}/${count}/${type}`;
  const rateKey = (
    code: string,
    setup: string,
    trial: string,
    period: number,
    type: string,
    inclusive: boolean | null,
    terms: string[],
  ) => {
    // Whether the prices include tax is part of the price: null (the account's) differs from an explicit value.
    const taxes = inclusive === null ? 'account' : String(inclusive);
    return [
      code,
      new Big(setup).toFixed(),
      new Big(trial).toFixed(),
      period,
      type,
      taxes,
      ...terms.sort(),
    ].join('|');
  };
  const before = stored
    .map((r) =>
      rateKey(
        r.currencyCode,
        r.setupFee,
        r.trialFee,
        r.trialPeriod,
        r.trialPeriodType,
        r.isTaxInclusive,
        storedTerms
          .filter((t) => t.rateId === r.id)
          .map((t) => termKey(t.chargePrice, t.chargeTerm, t.chargeTermType)),
      ),
    )
    .sort();
  const after = rates
    .map(({ rate, terms }) =>
      rateKey(
        rate.currencyCode,
        rate.setupFee,
        rate.trialFee,
        rate.trialPeriod,
        rate.trialPeriodType,
        rate.isTaxInclusive,
        terms.map((t) => termKey(t.chargePrice, t.chargeTerm, t.chargeTermType)),
      ),
    )
    .sort();
  return before.length === after.length && before.every((key, i) => key === after[i]);
}

/**
 * Spec: same body as add; the rates are replaced (new packageRateID and packageRateTermID). isDefault true makes
 * the version the default; the default cannot be made non-default or inactive while other versions exist.
 * Public notes: to change the price of something that has subscribers, add a version. So a version with
 * subscriptions takes its name and flags but only the prices it has (409 otherwise), which then keep their ids.
 * `subscriptionsByVersion`: counted by the flow that edits it, in the same transaction (src/flows/packageChanges.ts).
 */
export async function editPackageVersionRecord(
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
  input: VersionInput,
  subscriptionsByVersion: SubscriptionsByVersion,
): Promise<void> {
  await findPackageOrThrow(ctx, packageId);
  const version = await checkedVersion(ctx, input, '');
  await changeVersions(ctx, PACKAGES, packageId, async (trx, versions) => {
    const current = versionIn(versions, packageId, versionNo);
    // The only version stays the default whatever isDefault says, as the first version is made.
    const isDefault = version.isDefault || versions.length === 1;
    assertEditKeepsDefault(current, { isDefault, isActive: version.isActive }, versions.length, CONFLICTS);
    const tctx = inTransaction(ctx, trx);
    const before = await snapshotResource(tctx, packageVersionRef(current.id));
    const moved = isDefault
      ? await defaultMoveSnapshots(tctx, PACKAGES, packageId, versions, current.id)
      : [];
    const emitChanges = () =>
      emitEvents(tctx, [
        { type: 'package_version.updated', ref: packageVersionRef(current.id), before },
        ...updatedEvents(moved),
      ]);
    await repo.updateVersion(trx, ctx.account.id, current.id, {
      versionName: version.versionName,
      isDefault,
      isActive: version.isActive,
    });
    if (isDefault) await repo.clearDefaultVersion(trx, ctx.account.id, packageId, current.id);
    const subscriptions = subscriptionsByVersion.get(current.id) ?? 0;
    if (subscriptions > 0) {
      const scope = { versionIds: [current.id] };
      const stored = await repo.listRates(trx, ctx.account.id, scope);
      const storedTerms = await repo.listTerms(trx, ctx.account.id, scope);
      if (!samePrices(stored, storedTerms, version.rates)) {
        throw new ConflictError(
          'version_in_use',
          `Version ${versionNo} has ${subscriptions} subscription(s); new prices need a new version`,
        );
      }
      await emitChanges();
      return;
    }
    await repo.deleteRatesOfVersion(trx, ctx.account.id, current.id);
    await repo.insertRates(trx, ctx.account.id, current.id, version.rates);
    await emitChanges();
  });
}

/**
 * The last version of a package cannot be deleted (as the spec says of components), nor the default while others
 * exist, nor a version with subscriptions (`subscriptionsByVersion`, counted by the flow that deletes it, in the
 * same transaction). Its VersionNo is not given again.
 */
export async function deletePackageVersionRecord(
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
  subscriptionsByVersion: SubscriptionsByVersion,
): Promise<void> {
  await changeVersions(ctx, PACKAGES, packageId, async (trx, versions) => {
    const current = versionIn(versions, packageId, versionNo);
    assertVersionDeletable(current, versions.length, CONFLICTS);
    const subscriptions = subscriptionsByVersion.get(current.id) ?? 0;
    if (subscriptions > 0) {
      throw new ConflictError('version_in_use', `Version ${versionNo} has ${subscriptions} subscription(s)`);
    }
    await deleteVersionOf(ctx, trx, PACKAGES, current.id);
  });
}
