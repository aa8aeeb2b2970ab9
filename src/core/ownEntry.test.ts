import { describe, expect, it } from 'vitest';
import { ownEntry } from './ownEntry.ts';

describe('ownEntry', () => {
  const table: Readonly<Record<string, string>> = { visa: 'Visa', constructor: 'a key of its own' };

  it('finds the table’s own entries', () => {
    expect(ownEntry(table, 'visa')).toBe('Visa');
    expect(ownEntry(table, 'constructor')).toBe('a key of its own');
  });

  it('finds nothing a plain object inherits', () => {
    for (const key of ['toString', 'valueOf', '__proto__', 'hasOwnProperty', 'isPrototypeOf'])
      expect(ownEntry(table, key), key).toBeUndefined();
    expect(ownEntry({}, 'constructor')).toBeUndefined();
  });
});
