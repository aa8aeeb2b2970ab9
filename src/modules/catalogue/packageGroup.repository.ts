import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { PackageGroupsTable } from './tables.ts';

type PackageGroupRow = Pick<Selectable<PackageGroupsTable>, 'id' | 'group_name'>;

export interface PackageGroup {
  id: number;
  groupName: string;
}

function groupFromRow(row: PackageGroupRow): PackageGroup {
  return { id: row.id, groupName: row.group_name };
}

const GROUP_COLUMNS = ['id', 'group_name'] as const;

export async function findPackageGroup(
  db: Db,
  accountId: number,
  groupId: number,
): Promise<PackageGroup | undefined> {
  const row = await db
    .selectFrom('package_groups')
    .select(GROUP_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', groupId)
    .executeTakeFirst();
  return row && groupFromRow(row);
}

export async function findPackageGroups(
  db: Db,
  accountId: number,
  groupIds: readonly number[],
): Promise<PackageGroup[]> {
  if (groupIds.length === 0) return [];
  const rows = await db
    .selectFrom('package_groups')
    .select(GROUP_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...groupIds])
    .orderBy('id')
    .execute();
  return rows.map(groupFromRow);
}

export async function listPackageGroups(db: Db, accountId: number, page: Page): Promise<PackageGroup[]> {
  const rows = await db
    .selectFrom('package_groups')
    .select(GROUP_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(groupFromRow);
}

export async function insertPackageGroup(
  db: Db,
  accountId: number,
  groupName: string,
  at: string,
): Promise<number> {
  const inserted = await db
    .insertInto('package_groups')
    .values({ account_id: accountId, group_name: groupName, created_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updatePackageGroup(
  db: Db,
  accountId: number,
  groupId: number,
  groupName: string,
): Promise<boolean> {
  const result = await db
    .updateTable('package_groups')
    .set({ group_name: groupName })
    .where('account_id', '=', accountId)
    .where('id', '=', groupId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deletePackageGroup(db: Db, accountId: number, groupId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('package_groups')
    .where('account_id', '=', accountId)
    .where('id', '=', groupId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** How many packages and components of the account are in the group (a group in use cannot be deleted). */
export async function countGroupMembers(
  db: Db,
  accountId: number,
  groupId: number,
): Promise<{ packages: number; components: number }> {
  const packages = await db
    .selectFrom('packages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('package_group_id', '=', groupId)
    .executeTakeFirstOrThrow();
  const components = await db
    .selectFrom('components')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('package_group_id', '=', groupId)
    .executeTakeFirstOrThrow();
  return { packages: Number(packages.n), components: Number(components.n) };
}
