// A V8 CPU profile as `node --cpu-prof` writes it (BENCH_CPU_PROFILE_DIR), and what the tools that read one
// (bench/flameGraph.ts, bench/billRun/profileSummary.ts) share; a sampling heap profile read in the same shape.
import { existsSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { SourceMap } from 'node:module';
import type { SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/**
 * Samples where this process allocates, the garbage included (V8's heap profiler, about every `intervalBytes`
 * allocated); the function it answers stops the sampling and answers the profile as a `.heapprofile` holds it.
 */
export async function sampleAllocations(intervalBytes: number): Promise<() => Promise<unknown>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    session.disconnect();
    return profile;
  };
}

/** A sampling heap profile as the inspector's `HeapProfiler.stopSampling` answers it (`.heapprofile`). */
interface HeapProfileNode {
  id: number;
  callFrame: ProfileNode['callFrame'];
  children: HeapProfileNode[];
}

/**
 * A sampling heap profile in a CPU profile's shape, each sample weighing the bytes it stands for instead of the
 * microseconds since the last: what reads a CPU profile's samples reads where the memory was allocated.
 */
export function readHeapProfile(file: string): Profile {
  const { head, samples } = JSON.parse(readFileSync(file, 'utf8')) as {
    head: HeapProfileNode;
    samples: { size: number; nodeId: number }[];
  };
  const nodes: ProfileNode[] = [];
  const flatten = (node: HeapProfileNode): void => {
    nodes.push({ id: node.id, callFrame: node.callFrame, children: node.children.map((child) => child.id) });
    node.children.forEach(flatten);
  };
  flatten(head);
  return {
    nodes,
    samples: samples.map((sample) => sample.nodeId),
    timeDeltas: samples.map((sample) => sample.size),
    startTime: 0,
    endTime: 0,
  };
}

/** Each node's parent, by id: a sample's stack is its node and the parents above it. */
export function parentsOf(profile: Profile): Map<number, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return parent;
}

/**
 * A profile from its file, each frame of the bundle the service runs from (dist/bundle/, scripts/bundle.mjs) put back
 * at its compiled module in dist/ and that module's line, through the bundle's source maps.
 */
export function readProfile(file: string): Profile {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const maps = new Map<string, SourceMap | undefined>();
  for (const { callFrame } of profile.nodes) {
    if (!/\/dist\/bundle\/[^/]+\.js$/.test(callFrame.url)) continue;
    if (!maps.has(callFrame.url)) maps.set(callFrame.url, sourceMapBeside(callFrame.url));
    const entry = maps.get(callFrame.url)?.findEntry(callFrame.lineNumber, callFrame.columnNumber ?? 0);
    if (!entry || !('originalSource' in entry)) continue;
    callFrame.url = new URL(entry.originalSource, callFrame.url).href;
    callFrame.lineNumber = entry.originalLine;
    callFrame.columnNumber = entry.originalColumn;
  }
  return profile;
}

/** The source map beside a bundle's file, or undefined where there is none (a profile taken elsewhere). */
function sourceMapBeside(url: string): SourceMap | undefined {
  const file = `${fileURLToPath(url)}.map`;
  if (!existsSync(file)) return undefined;
  return new SourceMap(JSON.parse(readFileSync(file, 'utf8')) as SourceMapPayload);
}

/** A script's place: the service's file from src/ (or dist/), a package by its name, Node's own as its URL. */
export function placeOf(url: string): string {
  if (url === '') return '';
  const own = /\/(?:src|dist)\/(.*)$/.exec(url);
  if (own) return own[1]!;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  return url.startsWith('node:') ? url : path.basename(url);
}
