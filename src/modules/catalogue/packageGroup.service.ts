import { inTransaction, nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { isForeignKeyViolation } from '../../storage/database.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './packageGroup.repository.ts';
import type { PackageGroup } from './packageGroup.repository.ts';

export type { PackageGroup } from './packageGroup.repository.ts';

function checkedGroupName(value: string): string {
  const name = value.trim();
  if (name === '') throw ValidationError.field('GroupName', 'must not be blank');
  return name;
}

const groupRef = (id: number) => ({ type: 'package_group', id });

/** The account's package groups with these ids, by id. */
export async function packageGroupsByIds(
  ctx: ServiceContext,
  groupIds: readonly number[],
): Promise<Map<number, PackageGroup>> {
  const groups = await repo.findPackageGroups(ctx.db, ctx.account.id, groupIds);
  return new Map(groups.map((group) => [group.id, group]));
}

export async function getPackageGroup(ctx: ServiceContext, groupId: number): Promise<PackageGroup> {
  const group = await repo.findPackageGroup(ctx.db, ctx.account.id, groupId);
  if (!group) throw new NotFoundError('Package group', groupId);
  return group;
}

/**
 * Packages and components name their group in the body: a group the account cannot see (missing, or another
 * account's) is a 422 naming `field`, the same message either way so that other accounts' ids stay invisible.
 */
export async function assertPackageGroupExists(
  ctx: ServiceContext,
  groupId: number,
  field: string,
): Promise<void> {
  if (!(await repo.findPackageGroup(ctx.db, ctx.account.id, groupId))) {
    throw ValidationError.field(field, `package group ${groupId} does not exist`, 'package_group_not_found');
  }
}

export async function listPackageGroups(ctx: ServiceContext, page: Page): Promise<PackageGroup[]> {
  return repo.listPackageGroups(ctx.db, ctx.account.id, page);
}

export async function createPackageGroup(ctx: ServiceContext, groupName: string): Promise<PackageGroup> {
  const name = checkedGroupName(groupName);
  const id = await withTransaction(ctx, async (tctx) => {
    const groupId = await repo.insertPackageGroup(tctx.db, ctx.account.id, name, nowInstant(ctx));
    await emitEvent(tctx, 'package_group.created', groupRef(groupId));
    return groupId;
  });
  return { id, groupName: name };
}

export async function renamePackageGroup(
  ctx: ServiceContext,
  groupId: number,
  groupName: string,
): Promise<void> {
  const name = checkedGroupName(groupName);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, groupRef(groupId));
    if (!(await repo.updatePackageGroup(tctx.db, ctx.account.id, groupId, name))) {
      throw new NotFoundError('Package group', groupId);
    }
    await emitEvent(tctx, 'package_group.updated', groupRef(groupId), { before });
  });
}

/** A group that packages or components still belong to cannot be deleted (409): move or delete them first. */
export async function deletePackageGroup(ctx: ServiceContext, groupId: number): Promise<void> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const members = await repo.countGroupMembers(trx, ctx.account.id, groupId);
      if (members.packages > 0 || members.components > 0) {
        throw new ConflictError(
          'package_group_in_use',
          `Package group ${groupId} holds ${members.packages} package(s) and ${members.components} component(s)`,
        );
      }
      const tctx = inTransaction(ctx, trx);
      const before = await snapshotResource(tctx, groupRef(groupId));
      if (!(await repo.deletePackageGroup(trx, ctx.account.id, groupId))) {
        throw new NotFoundError('Package group', groupId);
      }
      await emitEvent(tctx, 'package_group.deleted', groupRef(groupId), { before });
    });
  } catch (error) {
    // A package or component added to the group by a concurrent request, after the count: the foreign key
    // refuses the delete, and the answer is the same as if the count had seen it.
    if (isForeignKeyViolation(error)) {
      throw new ConflictError('package_group_in_use', `Package group ${groupId} is in use`);
    }
    throw error;
  }
}
