import { describe, expect, it } from 'vitest';
import { flameGraph } from './flameGraph.ts';
import type { Profile } from './cpuProfile.ts';

const frame = (id: number, functionName: string, children: number[] = [], url = '') => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
  children,
});

/** (root) → handler → { query, write }, and idle: 10 samples of 1 ms, a sample's weight the delta after it. */
const profile: Profile = {
  nodes: [
    frame(1, '(root)', [2, 5]),
    frame(2, 'handler', [3, 4], 'file:///srv/dist/modules/customers/customers.routes.js'),
    frame(3, 'query', [], 'file:///srv/node_modules/pg/lib/client.js'),
    frame(4, 'write'),
    frame(5, '(idle)'),
  ],
  // handler ×2, query ×3, write ×1, idle ×4, in time order
  samples: [2, 3, 3, 3, 4, 2, 5, 5, 5, 5],
  timeDeltas: Array.from({ length: 10 }, () => 1000),
  startTime: 0,
  endTime: 10_000,
};

/** Each frame's title and width, as drawn. */
function framesDrawn(svg: string): Map<string, number> {
  const drawn = new Map<string, number>();
  for (const match of svg.matchAll(/<title>([^(]+) \(.*?<\/title><rect [^>]*width="([\d.]+)"/g)) {
    drawn.set(match[1]!, Number(match[2]));
  }
  return drawn;
}

describe('bench/flameGraph.ts', () => {
  it('draws each call path as wide as its CPU time, idle left out, named by function and place', () => {
    const { svg, sampledMs } = flameGraph(profile, { title: 'test' });
    // The last sample has no delta after it: 9 weighed samples, 4 of them idle (one weighs nothing).
    expect(sampledMs).toBe(6);
    const drawn = framesDrawn(svg);
    expect(drawn.get('all')).toBeCloseTo(1200, 1);
    expect(drawn.get('handler modules/customers/customers.routes.js:1')).toBeCloseTo(1200, 1);
    expect(drawn.get('query pg:1')).toBeCloseTo(600, 1);
    expect(drawn.get('write')).toBeCloseTo(200, 1);
    expect(drawn.has('(idle)')).toBe(false);
    expect(svg).toContain('test: 6 ms of CPU');
  });

  it('draws only the stretch asked for', () => {
    // Samples at 1..4 ms: handler, query, query, query.
    const { sampledMs, svg } = flameGraph(profile, { from: 1000, to: 4000, title: 'stretch' });
    expect(sampledMs).toBe(4);
    const drawn = framesDrawn(svg);
    expect(drawn.get('query pg:1')).toBeCloseTo(900, 1);
    expect(drawn.has('write')).toBe(false);
  });
});
