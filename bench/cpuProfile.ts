// A V8 CPU profile as `node --cpu-prof` writes it (BENCH_CPU_PROFILE_DIR), and what the tools that read one
// (bench/flameGraph.ts, bench/billRun/profileSummary.ts) share.
import path from 'node:path';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Each node's parent, by id: a sample's stack is its node and the parents above it. */
export function parentsOf(profile: Profile): Map<number, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return parent;
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
