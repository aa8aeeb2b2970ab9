import { inTransaction, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit, ResourceRef, Snapshot } from '../events/index.ts';
import { deleteVersionRow, deleteVersionedItem, lockVersionedItem } from './versioning.repository.ts';
import type { VersionedTable } from './versioning.repository.ts';

// The steps packages and components take alike around their versions: the lock under which the version rules
// (versionRules.ts) are checked, and the events a moved default or a deleted item announces.

/** A stored version as these steps see it. */
interface VersionOfItem {
  id: number;
  isDefault: boolean;
}

/** One kind of versioned item: its table, its name in not-found errors, its resources and how its versions read. */
export interface VersionedKind<V extends VersionOfItem> {
  table: VersionedTable;
  name: 'Package' | 'Component';
  itemRef(id: number): ResourceRef;
  versionRef(id: number): ResourceRef;
  /** Every version of the item, in VersionNo order. */
  listVersions(db: Db, accountId: number, itemId: number): Promise<V[]>;
}

/**
 * Runs `change` on the item's versions with the item locked, so that the version rules hold: the versions are
 * read after the lock. Not found when the account has no such item. In the caller's transaction when it has one
 * (a flow's, which counted the subscriptions on the versions first: src/flows/).
 */
export async function changeVersions<V extends VersionOfItem, T>(
  ctx: ServiceContext,
  kind: VersionedKind<V>,
  itemId: number,
  change: (trx: Db, versions: V[]) => Promise<T>,
): Promise<T> {
  return withTransaction(ctx, async ({ db: trx }) => {
    if (!(await lockVersionedItem(trx, kind.table, ctx.account.id, itemId))) {
      throw new NotFoundError(kind.name, itemId);
    }
    return change(trx, await kind.listVersions(trx, ctx.account.id, itemId));
  });
}

/**
 * Snapshots for a change that makes another version the default: the item (its default is part of it) and the
 * version that stops being the default. None when the default stays where it is.
 */
export async function defaultMoveSnapshots<V extends VersionOfItem>(
  ctx: ServiceContext,
  kind: VersionedKind<V>,
  itemId: number,
  versions: readonly V[],
  newDefaultId: number,
): Promise<Snapshot[]> {
  const former = versions.find((v) => v.isDefault && v.id !== newDefaultId);
  if (!former) return [];
  return [
    await snapshotResource(ctx, kind.versionRef(former.id)),
    await snapshotResource(ctx, kind.itemRef(itemId)),
  ];
}

/** The `.updated` events of what the snapshots were taken of. */
export const updatedEvents = (snapshots: Snapshot[]): EventToEmit[] =>
  snapshots.map((before) => ({ type: `${before.ref.type}.updated`, ref: before.ref, before }));

/**
 * Deletes the locked item with its versions (inside `changeVersions`). Its versions go with it: each announces
 * its deletion first, as when deleted one by one, then the item.
 */
export async function deleteItemWithVersions<V extends VersionOfItem>(
  ctx: ServiceContext,
  trx: Db,
  kind: VersionedKind<V>,
  itemId: number,
  versions: readonly V[],
): Promise<void> {
  const tctx = inTransaction(ctx, trx);
  const snapshots = [];
  for (const version of versions) snapshots.push(await snapshotResource(tctx, kind.versionRef(version.id)));
  snapshots.push(await snapshotResource(tctx, kind.itemRef(itemId)));
  await deleteVersionedItem(trx, kind.table, ctx.account.id, itemId);
  await emitEvents(
    tctx,
    snapshots.map((before) => ({ type: `${before.ref.type}.deleted`, ref: before.ref, before })),
  );
}

/** Deletes a version of the locked item (inside `changeVersions`) and announces it. */
export async function deleteVersionOf<V extends VersionOfItem>(
  ctx: ServiceContext,
  trx: Db,
  kind: VersionedKind<V>,
  versionId: number,
): Promise<void> {
  const tctx = inTransaction(ctx, trx);
  const ref = kind.versionRef(versionId);
  const before = await snapshotResource(tctx, ref);
  await deleteVersionRow(trx, kind.table, ctx.account.id, versionId);
  await emitEvent(tctx, `${ref.type}.deleted`, ref, { before });
}
