import { describe, expect, it } from 'vitest';
import { propertiesProblem } from './usageProperties.ts';

describe("an event's properties", () => {
  it('take 50 keys, three levels and 4096 bytes, and name what goes past them', () => {
    expect(propertiesProblem({ region: 'eu', tree: { a: { b: [1] } } })).toMatchObject({
      field: 'properties.tree',
    });
    expect(propertiesProblem({ region: 'eu', tree: { a: { b: 1 } }, list: [[1]] })).toBeUndefined();
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, i]));
    expect(propertiesProblem(fifty)).toBeUndefined();
    expect(propertiesProblem({ ...fifty, one: 1 })).toMatchObject({ field: 'properties' });
    const big = propertiesProblem({ small: 'x', big: 'y'.repeat(4100) });
    expect(big).toMatchObject({ field: 'properties.big' });
    expect(big!.problem).toMatch(/^makes the properties \d+ bytes as JSON \(this one 4102\); at most 4096/);
  });

  it('look no deeper than the bound, however deep a body nests', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 200_000; level += 1) deep = { x: deep };
    expect(propertiesProblem({ deep })).toMatchObject({ field: 'properties.deep' });
  });
});
