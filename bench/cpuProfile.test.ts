import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { parentsOf, readHeapProfile, readProfile, sampleAllocations } from './cpuProfile.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cpu-profile-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('bench/cpuProfile.ts readProfile', () => {
  it("puts a frame of the bundle back at its module in dist/ and that module's line", async () => {
    // Two modules bundled into dist/bundle/ with a linked source map, as scripts/bundle.mjs writes them.
    const dist = path.join(root, 'dist');
    fs.mkdirSync(path.join(dist, 'modules'), { recursive: true });
    fs.writeFileSync(
      path.join(dist, 'modules', 'tax.js'),
      'export function rate(x) {\n  return x * 0.15;\n}\n',
    );
    fs.writeFileSync(
      path.join(dist, 'cli.js'),
      "import { rate } from './modules/tax.js';\n\nconsole.log(rate(Number(process.argv[2])));\n",
    );
    await build({
      entryPoints: [path.join(dist, 'cli.js')],
      outdir: path.join(dist, 'bundle'),
      bundle: true,
      format: 'esm',
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'silent',
    });
    const bundled = path.join(dist, 'bundle', 'cli.js');
    const lines = fs.readFileSync(bundled, 'utf8').split('\n');
    const line = lines.findIndex((text) => text.includes('x * 0.15'));
    expect(line).toBeGreaterThan(-1);

    const bundleUrl = pathToFileURL(bundled).href;
    const elsewhere = 'file:///srv/dist/bundle/server-ABC.js'; // no map beside it: left as it is
    const profileFile = path.join(root, 'run.cpuprofile');
    fs.writeFileSync(
      profileFile,
      JSON.stringify({
        nodes: [
          { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 3] },
          {
            id: 2,
            callFrame: { functionName: 'rate', url: bundleUrl, lineNumber: line, columnNumber: 2 },
          },
          { id: 3, callFrame: { functionName: 'serve', url: elsewhere, lineNumber: 7, columnNumber: 0 } },
        ],
        samples: [2, 3],
        timeDeltas: [1000, 1000],
        startTime: 0,
        endTime: 2000,
      }),
    );

    const [, rate, serve] = readProfile(profileFile).nodes;
    expect(rate!.callFrame).toMatchObject({
      url: pathToFileURL(path.join(dist, 'modules', 'tax.js')).href,
      lineNumber: 1,
    });
    expect(serve!.callFrame).toMatchObject({ url: elsewhere, lineNumber: 7 });
  });
});

/** Garbage, nearly all of it: what the sampling is to see though it is gone when the profile is taken. */
function allocateGarbage(count: number): number {
  const ring: number[][] = new Array(1000);
  for (let i = 0; i < count; i += 1) ring[i % ring.length] = new Array<number>(16).fill(i);
  return ring.length;
}

describe('bench/cpuProfile.ts readHeapProfile', () => {
  it("weighs each sample by its bytes and keeps each function's callers above it", async () => {
    const stop = await sampleAllocations(4096);
    allocateGarbage(200_000);
    const file = path.join(root, 'run.heapprofile');
    fs.writeFileSync(file, JSON.stringify(await stop()));

    const read = readHeapProfile(file);
    const byId = new Map(read.nodes.map((node) => [node.id, node]));
    const parents = parentsOf(read);
    const bytes = read.samples
      .map((nodeId, i) => ({ node: byId.get(nodeId)!, bytes: read.timeDeltas[i]! }))
      .filter(({ node }) => node.callFrame.functionName === 'allocateGarbage')
      .reduce((sum, { bytes }) => sum + bytes, 0);
    // 200,000 arrays of 16 numbers, 128 bytes of elements each and their headers (34 MB on Node 20), sampled every
    // 4 KB; the 1,000 still alive weigh 0.2 MB.
    expect(bytes).toBeGreaterThan(24 * 2 ** 20);
    expect(bytes).toBeLessThan(48 * 2 ** 20);
    const leaf = read.samples.find(
      (nodeId) => byId.get(nodeId)!.callFrame.functionName === 'allocateGarbage',
    )!;
    const stack: string[] = [];
    for (let id: number | undefined = leaf; id !== undefined; id = parents.get(id)) {
      stack.push(byId.get(id)!.callFrame.functionName);
    }
    expect(stack.at(-1)).toBe('(root)');
  });
});
