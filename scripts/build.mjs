#!/usr/bin/env node
/**
 * Compiles src/ to dist/ (tsconfig.build.json: `tsc --build`, incremental) and bundles that into dist/bundle/
 * (scripts/bundle.mjs), the JavaScript that bin/billing.js runs.
 * With nothing changed it only compares timestamps (a fraction of a second), so it runs wherever a stale dist/
 * could be used: `npm install` (prepare), bin/billing.js when a build input is newer than the last build (so
 * `npm start` and `npx billing`), the test suite (test/helpers/globalSetup.ts).
 * It emits without type-checking (`noCheck`): `npm run typecheck` is the type check, and one check is enough.
 *
 * Exit status 0 when dist/ matches src/ (or, without TypeScript, when a dist/ built before exists: a warning
 * says when it is older than src/); 1 when it could not be built (the reason on one line). A successful build
 * writes dist/.build-stamp (bin/buildState.mjs), which bin/billing.js compares the sources with.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  builtAtMs,
  DIST,
  findTsc,
  inputsChangedSince,
  ROOT,
  SRC,
  STALE_WARNING,
  STAMP,
} from '../bin/buildState.mjs';
import { BUNDLE, bundleDist } from './bundle.mjs';

const LOCK = path.join(ROOT, '.build.lock');
const LOCK_WAIT_MS = 180_000;

/** A reason the build failed, printed on one line by main(); thrown, so that `finally` still releases the lock. */
class BuildError extends Error {}

function fail(message) {
  throw new BuildError(message);
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Several test runs may start at once in one checkout: one builds, the others wait for it and find dist/ fresh. */
function lock() {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let holder, ageMs;
    try {
      holder = Number(fs.readFileSync(LOCK, 'utf8'));
      ageMs = Date.now() - fs.statSync(LOCK).mtimeMs;
    } catch (error) {
      if (error.code === 'ENOENT') continue; // released meanwhile
      throw error;
    }
    // A holder that died leaves the lock to be taken over; an empty file is one being written, unless it is old.
    const abandoned = holder ? !isRunning(holder) : ageMs > 5000;
    if (abandoned) {
      fs.rmSync(LOCK, { force: true });
      continue;
    }
    if (Date.now() > deadline) fail(`another build (process ${holder}) still holds ${LOCK}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
}

/**
 * tsc never deletes: output whose source is gone (a module removed or renamed) would stay importable, and so would
 * tests and fixtures compiled before tsconfig.build.json excluded them.
 */
function removeOrphans(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const output = path.join(dir, entry.name);
    if (output === BUNDLE) continue; // scripts/bundle.mjs writes it anew
    const source = path.join(SRC, path.relative(DIST, output));
    if (entry.isDirectory()) {
      removeOrphans(output);
      if (fs.readdirSync(output).length === 0) fs.rmdirSync(output);
    } else if (
      entry.name.endsWith('.js') &&
      (/\.(test|fixtures)\.js$/.test(entry.name) || !fs.existsSync(source.replace(/\.js$/, '.ts')))
    ) {
      fs.rmSync(output);
    }
  }
}

/**
 * tsc copies only what it compiles: the templates and style sheets a module keeps in a `templates/` folder (the
 * customer portal's) are copied beside the compiled code, which finds them by its own URL. A folder copied before
 * is replaced whole, so a template removed from src/ is gone from dist/ too.
 */
function copyTemplates(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const source = path.join(dir, entry.name);
    if (entry.name === 'templates') {
      const target = path.join(DIST, path.relative(SRC, source));
      fs.rmSync(target, { recursive: true, force: true });
      fs.cpSync(source, target, { recursive: true });
    } else {
      copyTemplates(source);
    }
  }
}

async function main() {
  const tsc = findTsc();
  if (!tsc) {
    // A production install (`npm ci --omit=dev`) has no compiler; it runs the dist/ built before (docs/operations.md).
    if (!fs.existsSync(path.join(BUNDLE, 'cli.js')))
      fail(
        'TypeScript is not installed and dist/ is missing: run `npm install` (with dev dependencies), then `npm run build`',
      );
    if (fs.existsSync(SRC) && inputsChangedSince(builtAtMs()))
      process.stderr.write(`build: ${STALE_WARNING}\n`);
    return;
  }

  lock();
  try {
    // Until this build succeeds, dist/ is not known to match src/: a failed build must not leave a stamp.
    fs.rmSync(STAMP, { force: true });
    const startedAt = new Date();
    const result = spawnSync(process.execPath, [tsc, '--build', path.join(ROOT, 'tsconfig.build.json')], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (result.status !== 0) {
      // tsc may have emitted and recorded the failed build as done: forget it, so the next build compiles again.
      fs.rmSync(path.join(DIST, '.tsbuildinfo'), { force: true });
      fail(`tsc --build exited with status ${result.status ?? result.signal}`);
    }
    if (fs.existsSync(DIST)) removeOrphans(DIST);
    copyTemplates(SRC);
    try {
      await bundleDist();
    } catch (error) {
      fail(`bundling dist/ failed: ${error.message.split('\n')[0]}`);
    }
    fs.writeFileSync(STAMP, `${startedAt.toISOString()}\n`);
    // Dated when the build started: a source saved while tsc ran is newer, so the next call builds again.
    fs.utimesSync(STAMP, startedAt, startedAt);
  } finally {
    fs.rmSync(LOCK, { force: true });
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof BuildError)) throw error;
  process.stderr.write(`build: ${error.message}\n`);
  process.exitCode = 1;
}
