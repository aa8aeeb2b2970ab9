import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Text } from '../../http/schemas.ts';

export const PackageGroupBody = Type.Object({ GroupName: Text(255, { minLength: 1 }) });
export type PackageGroupBody = Static<typeof PackageGroupBody>;

export const PackageGroupOut = Type.Object(
  { packageGroupID: Type.Integer(), GroupName: Type.String() },
  { $id: 'PackageGroup' },
);

export const PackageGroupIdParams = Type.Object({ packageGroupID: Id() });
