import type { Insertable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { PackageRateTermsTable } from './tables.ts';
import { catalogueChanged } from './catalogueRevision.repository.ts';
import { findVersionRowByNo, findVersionRows, listVersionRowsOf } from './versioning.repository.ts';
import type {
  NewPackage,
  NewPackageVersion,
  NewRate,
  NewRateTerm,
  PackageFields,
  PackageRecord,
  PackageVersionFields,
  PackageVersionRecord,
  RateTerm,
  VersionRateRecord,
} from './package.ts';
import {
  newPackageToRow,
  newPackageVersionToRow,
  newRateTermToRow,
  newRateToRow,
  packageFieldsToRow,
  packageFromRow,
  packageVersionFieldsToRow,
  packageVersionFromRow,
  rateTermFromRow,
  versionRateFromRow,
} from './package.mapper.ts';

const PACKAGE_COLUMNS = [
  'id',
  'package_group_id',
  'package_code',
  'name',
  'descrip',
  'is_active',
  'last_version_no',
] as const;
/** Which versions' rates and terms to read: those of whole packages, or of given versions. */
export type VersionScope = { packageIds: number[] } | { versionIds: number[] };

export async function findPackage(
  db: Db,
  accountId: number,
  packageId: number,
): Promise<PackageRecord | undefined> {
  const row = await db
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', packageId)
    .executeTakeFirst();
  return row && packageFromRow(row);
}

export async function listPackages(db: Db, accountId: number, page: Page): Promise<PackageRecord[]> {
  const rows = await db
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(packageFromRow);
}

export async function findPackages(
  db: Db,
  accountId: number,
  packageIds: readonly number[],
): Promise<PackageRecord[]> {
  if (packageIds.length === 0) return [];
  const rows = await db
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...packageIds])
    .orderBy('id')
    .execute();
  return rows.map(packageFromRow);
}

export async function findVersions(
  db: Db,
  accountId: number,
  versionIds: readonly number[],
): Promise<PackageVersionRecord[]> {
  return (await findVersionRows(db, 'packages', accountId, versionIds)).map(packageVersionFromRow);
}

export function findPackageIdByCode(
  db: Db,
  accountId: number,
  packageCode: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('packages')
    .select('id')
    .where('account_id', '=', accountId)
    .where('package_code', '=', packageCode)
    .executeTakeFirst();
}

export async function insertPackage(db: Db, pkg: NewPackage): Promise<number> {
  const inserted = await db
    .insertInto('packages')
    .values(newPackageToRow(pkg))
    .returning('id')
    .executeTakeFirstOrThrow();
  await catalogueChanged(db, pkg.accountId);
  return inserted.id;
}

export async function updatePackage(
  db: Db,
  accountId: number,
  packageId: number,
  fields: PackageFields,
): Promise<boolean> {
  const result = await db
    .updateTable('packages')
    .set(packageFieldsToRow(fields))
    .where('account_id', '=', accountId)
    .where('id', '=', packageId)
    .executeTakeFirst();
  await catalogueChanged(db, accountId);
  return result.numUpdatedRows > 0n;
}

/** Every version of each of the packages (a list of packages does not page their versions), in id order. */
export async function listVersionsOfPackages(
  db: Db,
  accountId: number,
  packageIds: readonly number[],
): Promise<PackageVersionRecord[]> {
  const rows = await listVersionRowsOf(db, 'packages', accountId, packageIds);
  return rows.map(packageVersionFromRow);
}

/** One package's versions in VersionNo order: a page of them, or all without `page`. */
export async function listVersionsOfPackage(
  db: Db,
  accountId: number,
  packageId: number,
  page?: Page,
): Promise<PackageVersionRecord[]> {
  const rows = await listVersionRowsOf(db, 'packages', accountId, [packageId], page);
  return rows.map(packageVersionFromRow);
}

export async function findVersionByNo(
  db: Db,
  accountId: number,
  packageId: number,
  versionNo: number,
): Promise<PackageVersionRecord | undefined> {
  const row = await findVersionRowByNo(db, 'packages', accountId, packageId, versionNo);
  return row && packageVersionFromRow(row);
}

/**
 * The rates of every version in scope, in one statement whatever their number. Filtering on the packages
 * (through the versions) keeps the parameter list as short as the page of packages.
 */
export async function listRates(
  db: Db,
  accountId: number,
  scope: VersionScope,
): Promise<VersionRateRecord[]> {
  const ids = 'packageIds' in scope ? scope.packageIds : scope.versionIds;
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('package_version_rates as r')
    .innerJoin('package_versions as v', 'v.id', 'r.package_version_id')
    .select([
      'r.id',
      'r.package_version_id',
      'v.package_id',
      'r.currency_code',
      'r.setup_fee',
      'r.trial_fee',
      'r.trial_period',
      'r.trial_period_type',
      'r.is_tax_inclusive',
    ])
    .where('r.account_id', '=', accountId)
    .where('packageIds' in scope ? 'v.package_id' : 'v.id', 'in', ids)
    .orderBy('r.id')
    .execute();
  return rows.map(versionRateFromRow);
}

/** The terms of every rate of the versions in scope, in one statement. */
export async function listTerms(db: Db, accountId: number, scope: VersionScope): Promise<RateTerm[]> {
  const ids = 'packageIds' in scope ? scope.packageIds : scope.versionIds;
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('package_rate_terms as t')
    .innerJoin('package_version_rates as r', 'r.id', 't.package_rate_id')
    .innerJoin('package_versions as v', 'v.id', 'r.package_version_id')
    .select(['t.id', 't.package_rate_id', 't.charge_price', 't.charge_term', 't.charge_term_type'])
    .where('t.account_id', '=', accountId)
    .where('packageIds' in scope ? 'v.package_id' : 'v.id', 'in', ids)
    .orderBy('t.id')
    .execute();
  return rows.map(rateTermFromRow);
}

export async function insertVersion(db: Db, version: NewPackageVersion): Promise<number> {
  const inserted = await db
    .insertInto('package_versions')
    .values(newPackageVersionToRow(version))
    .returning('id')
    .executeTakeFirstOrThrow();
  await catalogueChanged(db, version.accountId);
  return inserted.id;
}

export async function updateVersion(
  db: Db,
  accountId: number,
  versionId: number,
  fields: PackageVersionFields,
): Promise<boolean> {
  const result = await db
    .updateTable('package_versions')
    .set(packageVersionFieldsToRow(fields))
    .where('account_id', '=', accountId)
    .where('id', '=', versionId)
    .executeTakeFirst();
  await catalogueChanged(db, accountId);
  return result.numUpdatedRows > 0n;
}

/** Makes every version of the package but `keepVersionId` non-default. */
export async function clearDefaultVersion(
  db: Db,
  accountId: number,
  packageId: number,
  keepVersionId: number,
): Promise<void> {
  await db
    .updateTable('package_versions')
    .set({ is_default: false })
    .where('account_id', '=', accountId)
    .where('package_id', '=', packageId)
    .where('id', '!=', keepVersionId)
    .where('is_default', '=', true)
    .execute();
  await catalogueChanged(db, accountId);
}

export async function deleteRatesOfVersion(db: Db, accountId: number, versionId: number): Promise<void> {
  await db
    .deleteFrom('package_version_rates')
    .where('account_id', '=', accountId)
    .where('package_version_id', '=', versionId)
    .execute();
  await catalogueChanged(db, accountId);
}

const TERMS_PER_INSERT = 500;

/** Writes a version's rates with their terms: one insert per rate (for its id), then the terms together. */
export async function insertRates(
  db: Db,
  accountId: number,
  versionId: number,
  rates: { rate: NewRate; terms: NewRateTerm[] }[],
): Promise<void> {
  const terms: Insertable<PackageRateTermsTable>[] = [];
  for (const { rate, terms: rateTerms } of rates) {
    const inserted = await db
      .insertInto('package_version_rates')
      .values(newRateToRow(rate, accountId, versionId))
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const term of rateTerms) terms.push(newRateTermToRow(term, accountId, inserted.id));
  }
  // In slices, so that no statement nears either dialect's limit on bound parameters.
  for (let start = 0; start < terms.length; start += TERMS_PER_INSERT) {
    await db
      .insertInto('package_rate_terms')
      .values(terms.slice(start, start + TERMS_PER_INSERT))
      .execute();
  }
  if (rates.length > 0) await catalogueChanged(db, accountId);
}

export function listPackageNames(
  db: Db,
  accountId: number,
  packageIds: number[],
): Promise<{ id: number; name: string }[]> {
  if (packageIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('packages')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', packageIds)
    .execute();
}

/** Whether the rate of each package rate term given sets its prices to include tax (null: the account's). */
export async function listRateTermTaxInclusion(
  db: Db,
  accountId: number,
  rateTermIds: number[],
): Promise<{ id: number; isTaxInclusive: boolean | null }[]> {
  if (rateTermIds.length === 0) return [];
  const rows = await db
    .selectFrom('package_rate_terms as t')
    .innerJoin('package_version_rates as r', 'r.id', 't.package_rate_id')
    .select(['t.id', 'r.is_tax_inclusive'])
    .where('t.account_id', '=', accountId)
    .where('t.id', 'in', rateTermIds)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    isTaxInclusive: row.is_tax_inclusive === null ? null : Boolean(row.is_tax_inclusive),
  }));
}
