import type { Db } from '../../storage/database.ts';

/**
 * What other modules may read of the catalogue's tables inside their own statements (docs/architecture.md, "Tables
 * and their owners"): subqueries of the account's rows with only these columns, so a page of subscriptions shows
 * its packages' and components' names in one statement while the catalogue alone names its tables.
 */

/** Each package version with its package's name, aliased `package_version_names`. */
export function packageVersionNames(db: Db, accountId: number) {
  return db
    .selectFrom('package_versions')
    .innerJoin('packages', 'packages.id', 'package_versions.package_id')
    .select([
      'package_versions.id as package_version_id',
      'package_versions.package_id',
      'packages.name as package_name',
      'package_versions.version_no as package_version_no',
    ])
    .where('package_versions.account_id', '=', accountId)
    .as('package_version_names');
}

/** Each component version with its number, aliased `component_version_numbers`. */
export function componentVersionNumbers(db: Db, accountId: number) {
  return db
    .selectFrom('component_versions')
    .select(['id as component_version_id', 'version_no'])
    .where('account_id', '=', accountId)
    .as('component_version_numbers');
}
