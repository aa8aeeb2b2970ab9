import type { Selectable } from 'kysely';
import type { Page } from '../../core/paging.ts';
import type { Db } from '../../storage/database.ts';
import { catalogueChanged } from './catalogueRevision.repository.ts';
import type { ComponentVersionsTable, PackageVersionsTable } from './tables.ts';

/** The catalogue items that have versions; each row keeps the last VersionNo it gave. */
export type VersionedTable = 'packages' | 'components';

/**
 * Each kind's table of versions and the column there that names the item: the two tables are alike but for that
 * column, so the statements below serve both.
 */
const VERSIONS = {
  packages: { table: 'package_versions', item: 'package_id' },
  components: { table: 'component_versions', item: 'component_id' },
} as const;

/** A stored version of the kind, as its mapper reads it. */
export interface VersionRows {
  packages: Selectable<PackageVersionsTable>;
  components: Selectable<ComponentVersionsTable>;
}

const VERSION_COLUMNS = [
  'id',
  'account_id',
  'version_no',
  'version_name',
  'is_default',
  'is_active',
  'created_at',
] as const;

/** The account's versions of the kind, every column; the callers narrow it down. */
function versionsOf(db: Db, kind: VersionedTable, accountId: number) {
  const { table, item } = VERSIONS[kind];
  return db
    .selectFrom(table)
    .select([...VERSION_COLUMNS, item])
    .where('account_id', '=', accountId);
}

/**
 * The versions of the given items, in id order (which is VersionNo order per item); with `page`, that page of
 * them. The ids are at most a page of items, far below the dialects' parameter limits.
 */
export async function listVersionRowsOf<K extends VersionedTable>(
  db: Db,
  kind: K,
  accountId: number,
  itemIds: readonly number[],
  page?: Page,
): Promise<VersionRows[K][]> {
  if (itemIds.length === 0) return [];
  const rows = await versionsOf(db, kind, accountId)
    .where(VERSIONS[kind].item, 'in', [...itemIds])
    .orderBy('id')
    .$if(page !== undefined, (qb) => qb.limit(page!.limit).offset(page!.offset))
    .execute();
  // NOTE: the query over either table types its rows as having both item columns; each has its own.
  return rows as VersionRows[K][];
}

/** The account's versions of the kind with these ids, in id order; unknown ids are left out. */
export async function findVersionRows<K extends VersionedTable>(
  db: Db,
  kind: K,
  accountId: number,
  versionIds: readonly number[],
): Promise<VersionRows[K][]> {
  if (versionIds.length === 0) return [];
  const rows = await versionsOf(db, kind, accountId)
    .where('id', 'in', [...versionIds])
    .orderBy('id')
    .execute();
  return rows as VersionRows[K][];
}

export async function findVersionRowByNo<K extends VersionedTable>(
  db: Db,
  kind: K,
  accountId: number,
  itemId: number,
  versionNo: number,
): Promise<VersionRows[K] | undefined> {
  const row = await versionsOf(db, kind, accountId)
    .where(VERSIONS[kind].item, '=', itemId)
    .where('version_no', '=', versionNo)
    .executeTakeFirst();
  return row as VersionRows[K] | undefined;
}

/** Deletes a version; what hangs from it (prices, rates and their rows) goes with it (foreign keys cascade). */
export async function deleteVersionRow(
  db: Db,
  kind: VersionedTable,
  accountId: number,
  versionId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom(VERSIONS[kind].table)
    .where('account_id', '=', accountId)
    .where('id', '=', versionId)
    .executeTakeFirst();
  await catalogueChanged(db, accountId);
  return result.numDeletedRows > 0n;
}

/** Deletes the item; its versions and all below them go with it (foreign keys cascade). */
export async function deleteVersionedItem(
  db: Db,
  kind: VersionedTable,
  accountId: number,
  itemId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom(kind)
    .where('account_id', '=', accountId)
    .where('id', '=', itemId)
    .executeTakeFirst();
  await catalogueChanged(db, accountId);
  return result.numDeletedRows > 0n;
}

/**
 * Locks the item's row until the transaction ends, so that changes to its versions (the next VersionNo, which
 * version is the default) are made one at a time and the version rules are checked against settled rows. False
 * when the account has no such item.
 * NOTE: a no-op update rather than SELECT ... FOR UPDATE, which SQLite does not know: on PostgreSQL it takes the
 * row's lock; an SQLite transaction holds the database's write lock already (docs/architecture.md, "Locks").
 */
export async function lockVersionedItem(
  db: Db,
  table: VersionedTable,
  accountId: number,
  itemId: number,
): Promise<boolean> {
  const row = await db
    .updateTable(table)
    .set((eb) => ({ last_version_no: eb.ref('last_version_no') }))
    .where('account_id', '=', accountId)
    .where('id', '=', itemId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Spec: VersionNo is assigned by the service, increasing per item, and never given twice (deleted ones included). */
export async function takeNextVersionNo(
  db: Db,
  table: VersionedTable,
  accountId: number,
  itemId: number,
): Promise<number> {
  const row = await db
    .updateTable(table)
    .set((eb) => ({ last_version_no: eb('last_version_no', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', itemId)
    .returning('last_version_no')
    .executeTakeFirstOrThrow();
  return row.last_version_no;
}
