import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GATEWAY_TYPE_NAMES } from './gatewayTypes.ts';

// The README's command table is where an operator learns what `billing gateway add --type` takes: it must name
// every type the registry knows, and no other.
describe("the README's gateway add row", () => {
  it('lists every gateway type of the registry', () => {
    const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const row = readme.split('\n').find((line) => line.includes('`billing gateway add'));
    const listed = /--type ([\w\\|]+)/.exec(row ?? '')?.[1]?.split('\\|');
    expect(listed?.sort()).toEqual([...GATEWAY_TYPE_NAMES].sort());
  });
});
