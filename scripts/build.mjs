#!/usr/bin/env node
/**
 * Compiles src/ to dist/ (tsconfig.build.json: `tsc --build`, incremental), the JavaScript that bin/billing.js runs.
 * With nothing changed it only compares timestamps (a fraction of a second), so it runs wherever a stale dist/
 * could be used: `npm install` (prepare), `npm start` (prestart), the test suite (test/helpers/globalSetup.ts).
 * It emits without type-checking (`noCheck`): `npm run typecheck` is the type check, and one check is enough.
 *
 * Exit status 0 when dist/ matches src/; 1 when it could not be built (the reason on one line).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const LOCK = path.join(ROOT, '.build.lock');
const LOCK_WAIT_MS = 180_000;

function fail(message) {
  process.stderr.write(`build: ${message}\n`);
  process.exit(1);
}

function findTsc() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
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

/** tsc never deletes: output whose source is gone (a module removed or renamed) would stay importable. */
function removeOrphans(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const output = path.join(dir, entry.name);
    const source = path.join(SRC, path.relative(DIST, output));
    if (entry.isDirectory()) {
      removeOrphans(output);
      if (fs.readdirSync(output).length === 0) fs.rmdirSync(output);
    } else if (entry.name.endsWith('.js') && !fs.existsSync(source.replace(/\.js$/, '.ts'))) {
      fs.rmSync(output);
    }
  }
}

const tsc = findTsc();
if (!tsc) {
  // A production install (`npm ci --omit=dev`) has no compiler; it runs the dist/ built before (docs/operations.md).
  if (fs.existsSync(path.join(DIST, 'cli.js'))) process.exit(0);
  fail(
    'TypeScript is not installed and dist/ is missing: run `npm install` (with dev dependencies), then `npm run build`',
  );
}

lock();
try {
  const result = spawnSync(process.execPath, [tsc, '--build', path.join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (result.status !== 0) fail(`tsc --build exited with status ${result.status ?? result.signal}`);
  if (fs.existsSync(DIST)) removeOrphans(DIST);
} finally {
  fs.rmSync(LOCK, { force: true });
}
