import type { ConflictError } from '../../errors.ts';

// The version rules that packages and components share: an item has exactly one default version; isDefault true
// moves the default; while the item has other versions its default is active and stays the default; its last
// version cannot be deleted.

/** A stored version as the rules see it. */
export interface VersionFlags {
  versionNo: number;
  isDefault: boolean;
  isActive: boolean;
}

/** How one kind words the refusals: codes and messages differ between packages and components, and are API. */
export interface VersionConflicts {
  /** The default would be inactive beside other versions; `versionNo` names the default when it is not new. */
  inactiveDefault(versionNo?: number): ConflictError;
  defaultRequired(versionNo: number, change: 'made non-default' | 'deleted'): ConflictError;
  lastVersion(versionNo: number): ConflictError;
}

/**
 * Spec, Component versions POST (packages alike): isDefault true moves the default to the new version, which is
 * also the default when the item has none yet. Either way the default must be active while the item has other
 * versions, and the new version will be another one.
 */
export function newVersionIsDefault(
  versions: readonly VersionFlags[],
  wanted: { isDefault: boolean; isActive: boolean },
  conflicts: VersionConflicts,
): boolean {
  const current = versions.find((v) => v.isDefault);
  const isDefault = wanted.isDefault || current === undefined;
  if (isDefault && !wanted.isActive && versions.length > 0) throw conflicts.inactiveDefault();
  if (!isDefault && current && !current.isActive) throw conflicts.inactiveDefault(current.versionNo);
  return isDefault;
}

/**
 * The default keeps its role until another version takes it, so an item is never without one. `isDefault` is what
 * the edit makes of `target` as its kind reads the request: a package's only version stays the default whatever
 * isDefault says, while a component's keeps its role when isDefault is left out.
 */
export function assertEditKeepsDefault(
  target: VersionFlags,
  edit: { isDefault: boolean; isActive: boolean },
  versionCount: number,
  conflicts: VersionConflicts,
): void {
  if (target.isDefault && !edit.isDefault)
    throw conflicts.defaultRequired(target.versionNo, 'made non-default');
  if (edit.isDefault && !edit.isActive && versionCount > 1) throw conflicts.inactiveDefault(target.versionNo);
}

/** The default cannot be deleted while others exist (move the default first), so an item always has one. */
export function assertVersionDeletable(
  target: VersionFlags,
  versionCount: number,
  conflicts: VersionConflicts,
): void {
  // Spec, Limits: the last version of a component cannot be deleted; packages follow the same rule.
  if (versionCount === 1) throw conflicts.lastVersion(target.versionNo);
  if (target.isDefault) throw conflicts.defaultRequired(target.versionNo, 'deleted');
}
