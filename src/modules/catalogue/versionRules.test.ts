import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../errors.ts';
import { assertEditKeepsDefault, assertVersionDeletable, newVersionIsDefault } from './versionRules.ts';
import type { VersionConflicts, VersionFlags } from './versionRules.ts';

// The codes carry which rule refused and the version it named, so each test can say which rule it expects.
const conflicts: VersionConflicts = {
  inactiveDefault: (versionNo) => new ConflictError(`inactive_default ${versionNo ?? 'new'}`, ''),
  defaultRequired: (versionNo, change) => new ConflictError(`default_required ${versionNo} ${change}`, ''),
  lastVersion: (versionNo) => new ConflictError(`last_version ${versionNo}`, ''),
};

const version = (versionNo: number, isDefault: boolean, isActive = true): VersionFlags => ({
  versionNo,
  isDefault,
  isActive,
});

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as ConflictError).code;
  }
  return undefined;
};

describe('newVersionIsDefault', () => {
  const versions = [version(1, true), version(2, false)];

  it('moves the default to the new version when asked', () => {
    expect(newVersionIsDefault(versions, { isDefault: true, isActive: true }, conflicts)).toBe(true);
  });

  it('leaves the default where it is otherwise', () => {
    expect(newVersionIsDefault(versions, { isDefault: false, isActive: false }, conflicts)).toBe(false);
  });

  it('makes the first version the default whatever isDefault says, active or not', () => {
    expect(newVersionIsDefault([], { isDefault: false, isActive: false }, conflicts)).toBe(true);
  });

  it('refuses an inactive new default beside other versions', () => {
    expect(
      refusal(() => newVersionIsDefault(versions, { isDefault: true, isActive: false }, conflicts)),
    ).toBe('inactive_default new');
  });

  it('refuses another version while the default is inactive, naming the default', () => {
    const inactiveDefault = [version(3, true, false)];
    expect(
      refusal(() => newVersionIsDefault(inactiveDefault, { isDefault: false, isActive: true }, conflicts)),
    ).toBe('inactive_default 3');
  });
});

describe('assertEditKeepsDefault', () => {
  it('refuses to make the default non-default', () => {
    expect(
      refusal(() =>
        assertEditKeepsDefault(version(2, true), { isDefault: false, isActive: true }, 2, conflicts),
      ),
    ).toBe('default_required 2 made non-default');
  });

  it('refuses an inactive default beside other versions, and allows it as the only version', () => {
    const edit = { isDefault: true, isActive: false };
    expect(refusal(() => assertEditKeepsDefault(version(2, true), edit, 2, conflicts))).toBe(
      'inactive_default 2',
    );
    expect(refusal(() => assertEditKeepsDefault(version(2, true), edit, 1, conflicts))).toBeUndefined();
  });

  it('lets any other version change freely', () => {
    expect(
      refusal(() =>
        assertEditKeepsDefault(version(2, false), { isDefault: false, isActive: false }, 2, conflicts),
      ),
    ).toBeUndefined();
  });
});

describe('assertVersionDeletable', () => {
  it('refuses the last version before asking whether it is the default', () => {
    expect(refusal(() => assertVersionDeletable(version(1, true), 1, conflicts))).toBe('last_version 1');
  });

  it('refuses the default while others exist', () => {
    expect(refusal(() => assertVersionDeletable(version(1, true), 2, conflicts))).toBe(
      'default_required 1 deleted',
    );
  });

  it('allows a version that is neither', () => {
    expect(refusal(() => assertVersionDeletable(version(2, false), 2, conflicts))).toBeUndefined();
  });
});
