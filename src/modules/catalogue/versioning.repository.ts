import type { Db } from '../../storage/database.ts';

/** The catalogue items that have versions; each row keeps the last VersionNo it gave. */
export type VersionedTable = 'packages' | 'components';

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
