import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type {
  PackageRateTermsTable,
  PackageVersionRatesTable,
  PackageVersionsTable,
  PackagesTable,
} from './tables.ts';
import { catalogueChanged } from './catalogueRevision.repository.ts';

export type PackageRow = Omit<Selectable<PackagesTable>, 'account_id' | 'created_at'>;
export type PackageChanges = Updateable<
  Pick<PackagesTable, 'package_group_id' | 'package_code' | 'name' | 'descrip' | 'is_active'>
>;
export type VersionRow = Omit<Selectable<PackageVersionsTable>, 'account_id' | 'created_at'>;
export type VersionChanges = Updateable<
  Pick<PackageVersionsTable, 'version_name' | 'is_default' | 'is_active'>
>;
/** A rate with the package it belongs to (read through its version): the wire shows packageID on rates. */
export type RateRow = Omit<Selectable<PackageVersionRatesTable>, 'account_id'> & { package_id: number };
export type TermRow = Omit<Selectable<PackageRateTermsTable>, 'account_id'>;
export type NewRateRow = Omit<Insertable<PackageVersionRatesTable>, 'account_id' | 'package_version_id'>;
export type NewTermRow = Omit<Insertable<PackageRateTermsTable>, 'account_id' | 'package_rate_id'>;

const PACKAGE_COLUMNS = [
  'id',
  'package_group_id',
  'package_code',
  'name',
  'descrip',
  'is_active',
  'last_version_no',
] as const;
const VERSION_COLUMNS = [
  'id',
  'package_id',
  'version_no',
  'version_name',
  'is_default',
  'is_active',
] as const;

/** Which versions' rates and terms to read: those of whole packages, or of given versions. */
export type VersionScope = { packageIds: number[] } | { versionIds: number[] };

export function findPackage(db: Db, accountId: number, packageId: number): Promise<PackageRow | undefined> {
  return db
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', packageId)
    .executeTakeFirst();
}

export function listPackages(db: Db, accountId: number, page: Page): Promise<PackageRow[]> {
  return db
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export function findPackages(
  db: Db,
  accountId: number,
  packageIds: readonly number[],
): Promise<PackageRow[]> {
  if (packageIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...packageIds])
    .orderBy('id')
    .execute();
}

export function findVersions(
  db: Db,
  accountId: number,
  versionIds: readonly number[],
): Promise<VersionRow[]> {
  if (versionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('package_versions')
    .select(VERSION_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...versionIds])
    .orderBy('id')
    .execute();
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

export async function insertPackage(db: Db, row: Insertable<PackagesTable>): Promise<number> {
  const inserted = await db.insertInto('packages').values(row).returning('id').executeTakeFirstOrThrow();
  await catalogueChanged(db, row.account_id);
  return inserted.id;
}

export async function updatePackage(
  db: Db,
  accountId: number,
  packageId: number,
  changes: PackageChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('packages')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', packageId)
    .executeTakeFirst();
  await catalogueChanged(db, accountId);
  return result.numUpdatedRows > 0n;
}

/** Deletes the package; its versions, rates and terms go with it (foreign keys cascade). */
export async function deletePackage(db: Db, accountId: number, packageId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('packages')
    .where('account_id', '=', accountId)
    .where('id', '=', packageId)
    .executeTakeFirst();
  await catalogueChanged(db, accountId);
  return result.numDeletedRows > 0n;
}

export function listVersionsOfPackages(
  db: Db,
  accountId: number,
  packageIds: number[],
): Promise<VersionRow[]> {
  if (packageIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('package_versions')
    .select(VERSION_COLUMNS)
    .where('account_id', '=', accountId)
    .where('package_id', 'in', packageIds)
    .orderBy('id')
    .execute();
}

export function listVersions(
  db: Db,
  accountId: number,
  packageId: number,
  page?: Page,
): Promise<VersionRow[]> {
  return db
    .selectFrom('package_versions')
    .select(VERSION_COLUMNS)
    .where('account_id', '=', accountId)
    .where('package_id', '=', packageId)
    .orderBy('id')
    .$if(page !== undefined, (qb) => qb.limit(page!.limit).offset(page!.offset))
    .execute();
}

export function findVersionByNo(
  db: Db,
  accountId: number,
  packageId: number,
  versionNo: number,
): Promise<VersionRow | undefined> {
  return db
    .selectFrom('package_versions')
    .select(VERSION_COLUMNS)
    .where('account_id', '=', accountId)
    .where('package_id', '=', packageId)
    .where('version_no', '=', versionNo)
    .executeTakeFirst();
}

/**
 * The rates of every version in scope, in one statement whatever their number. Filtering on the packages
 * (through the versions) keeps the parameter list as short as the page of packages.
 */
export function listRates(db: Db, accountId: number, scope: VersionScope): Promise<RateRow[]> {
  const ids = 'packageIds' in scope ? scope.packageIds : scope.versionIds;
  if (ids.length === 0) return Promise.resolve([]);
  return db
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
}

/** The terms of every rate of the versions in scope, in one statement. */
export function listTerms(db: Db, accountId: number, scope: VersionScope): Promise<TermRow[]> {
  const ids = 'packageIds' in scope ? scope.packageIds : scope.versionIds;
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('package_rate_terms as t')
    .innerJoin('package_version_rates as r', 'r.id', 't.package_rate_id')
    .innerJoin('package_versions as v', 'v.id', 'r.package_version_id')
    .select(['t.id', 't.package_rate_id', 't.charge_price', 't.charge_term', 't.charge_term_type'])
    .where('t.account_id', '=', accountId)
    .where('packageIds' in scope ? 'v.package_id' : 'v.id', 'in', ids)
    .orderBy('t.id')
    .execute();
}

export async function insertVersion(db: Db, row: Insertable<PackageVersionsTable>): Promise<number> {
  const inserted = await db
    .insertInto('package_versions')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  await catalogueChanged(db, row.account_id);
  return inserted.id;
}

export async function updateVersion(
  db: Db,
  accountId: number,
  versionId: number,
  changes: VersionChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('package_versions')
    .set(changes)
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

/** Deletes the version; its rates and terms go with it (foreign keys cascade). */
export async function deleteVersion(db: Db, accountId: number, versionId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('package_versions')
    .where('account_id', '=', accountId)
    .where('id', '=', versionId)
    .executeTakeFirst();
  await catalogueChanged(db, accountId);
  return result.numDeletedRows > 0n;
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
  rates: { rate: NewRateRow; terms: NewTermRow[] }[],
): Promise<void> {
  const terms: Insertable<PackageRateTermsTable>[] = [];
  for (const { rate, terms: rateTerms } of rates) {
    const inserted = await db
      .insertInto('package_version_rates')
      .values({ ...rate, account_id: accountId, package_version_id: versionId })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const term of rateTerms)
      terms.push({ ...term, account_id: accountId, package_rate_id: inserted.id });
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
