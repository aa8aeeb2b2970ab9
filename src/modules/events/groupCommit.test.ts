import { describe, expect, it } from 'vitest';
import { groupCommit } from './groupCommit.ts';

describe('groupCommit', () => {
  it('writes the items that arrive while a write runs together, answering each in order', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstWrite = new Promise<void>((resolve) => (release = resolve));
    const write = groupCommit(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await firstWrite;
      return items.map((item) => item * 10);
    });
    const first = [write(1), write(2)];
    await new Promise((resolve) => setImmediate(resolve));
    // The first batch is being written: these wait for the next one.
    const second = [write(3), write(4), write(5)];
    release();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('gives every item of a failed batch the error, and writes later items anew', async () => {
    let calls = 0;
    const write = groupCommit(async (items: string[]) => {
      calls += 1;
      if (calls === 1) throw new Error('disk full');
      return items;
    });
    const failed = [write('a'), write('b')];
    await expect(failed[0]).rejects.toThrow('disk full');
    await expect(failed[1]).rejects.toThrow('disk full');
    expect(await write('c')).toBe('c');
  });
});
