#!/usr/bin/env node
// The `billing` command runs the compiled service, dist/bundle/ (scripts/build.mjs compiles and bundles src/). In a
// checkout where a build input changed after the last successful build, it builds first: what runs is never older
// than the sources.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { builtAtMs, DIST, findTsc, inputsChangedSince, ROOT, SRC, STALE_WARNING } from './buildState.mjs';

// A deployment may ship dist/ without src/ on purpose: then there is nothing to compare.
if (fs.existsSync(SRC) && inputsChangedSince(builtAtMs())) {
  if (!findTsc() && fs.existsSync(path.join(DIST, 'bundle', 'cli.js'))) {
    // `npm ci --omit=dev` next to a checkout: nothing can rebuild, so say once that what runs is older.
    process.stderr.write(`billing: ${STALE_WARNING}\n`);
  } else {
    const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {
      stdio: 'inherit',
    });
    if (build.status !== 0) process.exit(1);
  }
}
await import('../dist/bundle/cli.js');
