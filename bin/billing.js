#!/usr/bin/env node
// The `billing` command runs the compiled service, dist/ (scripts/build.mjs compiles src/ into it). In a checkout
// where src/ changed after the last build, it builds first: what runs is never older than the sources.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sources = path.join(root, 'src');

/** Modification time of the last build, or 0 when there is none. */
function builtAtMs() {
  try {
    return fs.statSync(path.join(root, 'dist', '.tsbuildinfo')).mtimeMs;
  } catch {
    return 0;
  }
}

/** Whether any source (or a folder, which changes when a file is added, removed or renamed) is newer than `ms`. */
function changedSince(ms) {
  if (fs.statSync(sources).mtimeMs > ms) return true;
  for (const entry of fs.readdirSync(sources, { recursive: true })) {
    if (fs.statSync(path.join(sources, entry)).mtimeMs > ms) return true;
  }
  return false;
}

// A deployment may ship dist/ without src/: then there is nothing to compare.
if (fs.existsSync(sources) && changedSince(builtAtMs())) {
  const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(1);
}
await import('../dist/cli.js');
