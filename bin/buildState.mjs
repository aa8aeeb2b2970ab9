// Whether dist/ is older than what it is built from: shared by bin/billing.js (rebuild before running) and
// scripts/build.mjs (warn when it cannot rebuild). Plain JavaScript, so that it runs before anything is compiled.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SRC = path.join(ROOT, 'src');
export const DIST = path.join(ROOT, 'dist');
/**
 * Written by scripts/build.mjs after a build that succeeded, with the time the build started (so a source saved
 * during the build still counts as newer), and removed before each build: its presence says dist/ is whole.
 * Not .tsbuildinfo: tsc leaves that untouched when nothing it compiles changed, and writes it after a failed build.
 */
export const STAMP = path.join(DIST, '.build-stamp');
/** The compiler's and the bundler's settings are inputs too. */
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'scripts/bundle.mjs'].map((name) =>
  path.join(ROOT, name),
);

/** The TypeScript compiler's entry point, or undefined where it is not installed (`npm ci --omit=dev`). */
export function findTsc() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

/** Modification time of the last successful build, or 0 when there is none. */
export function builtAtMs() {
  return mtimeMs(STAMP) ?? 0;
}

/** An entry's modification time (a symbolic link's own), or undefined when it is gone (deleted while we looked). */
function mtimeMs(file) {
  try {
    return fs.lstatSync(file).mtimeMs;
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * What tsconfig.build.json compiles: sources and the JSON they import, and the templates scripts/build.mjs copies
 * (.eta, .css); not tests or test fixtures (it excludes
 * them) and not hidden files (an editor's lock files such as .#invoice.ts, often dangling links).
 */
function isInput(name) {
  if (name.startsWith('.')) return false;
  if (name.endsWith('.test.ts') || name.endsWith('.fixtures.ts')) return false;
  return name.endsWith('.ts') || name.endsWith('.json') || name.endsWith('.eta') || name.endsWith('.css');
}

/**
 * Whether any build input, or a folder of src/ (which changes when a file is added, removed or renamed), is
 * newer than `ms`. A folder changed by a test file triggers one build, after which the stamp is newer again.
 */
export function inputsChangedSince(ms) {
  if (CONFIGS.some((file) => (mtimeMs(file) ?? 0) > ms)) return true;
  const walk = (dir) => {
    if ((mtimeMs(dir) ?? 0) > ms) return true;
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if (error.code === 'ENOENT') return false;
      throw error;
    }
    for (const entry of entries) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (walk(file)) return true;
      } else if (isInput(entry.name) && (mtimeMs(file) ?? 0) > ms) {
        return true;
      }
    }
    return false;
  };
  return walk(SRC);
}

/** The one line printed where dist/ is older than src/ and there is no compiler to rebuild it. */
export const STALE_WARNING =
  'warning: dist/ is older than src/ and TypeScript is not installed, so the older build runs: run `npm install` (with dev dependencies) and `npm run build` to rebuild';
