import type { Static } from '@sinclair/typebox';
import type { PackageGroup } from './packageGroup.service.ts';
import type { PackageGroupOut } from './packageGroups.schemas.ts';

export function toPackageGroupDto(group: PackageGroup): Static<typeof PackageGroupOut> {
  return { packageGroupID: group.id, GroupName: group.groupName };
}
