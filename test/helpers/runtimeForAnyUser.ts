import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './cli.ts';

/**
 * What `node dist/bundle/cli.js` needs (dist/, the packages, package.json, fonts/), put in a new directory that every
 * user may enter, for a test that runs the CLI as another user (`nobody`). The checkout itself may sit in a
 * directory only its owner can enter, as `mktemp -d` makes (mode 0700) or root's home is: that user could not
 * read it. Files are hard-linked (nothing is copied) unless other users could not read them or the link cannot be
 * made (another file system): then copied, readable by all. Node itself is brought along the same way when
 * other users cannot reach it where it is.
 */
export interface RuntimeForAnyUser {
  /** The directory to run from: `<root>/dist/bundle/cli.js`. */
  root: string;
  /** The node binary that other users can run. */
  node: string;
  remove(): void;
}

const PARTS = ['package.json', 'dist', 'node_modules', 'fonts'];

export function runtimeForAnyUser(): RuntimeForAnyUser {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-runtime-'));
  try {
    fs.chmodSync(root, 0o755);
    if (!reachableByOthers(root, 0o001))
      throw new Error(`other users cannot enter ${root}: set TMPDIR to one they can`);
    for (const part of PARTS) placeTree(path.join(ROOT, part), path.join(root, part));
    let node = process.execPath;
    if (!reachableByOthers(node, 0o001)) {
      node = path.join(root, 'node');
      placeFile(process.execPath, node, fs.statSync(process.execPath));
    }
    return { root, node, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
  } catch (error) {
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** Whether users other than the owner (and its group) may reach `file`, and use it as `bits` of "others" allow. */
function reachableByOthers(file: string, bits = 0): boolean {
  const resolved = fs.realpathSync(file);
  for (let dir = path.dirname(resolved); ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return false;
    if (path.dirname(dir) === dir) break;
  }
  return (fs.statSync(resolved).mode & bits) === bits;
}

function placeTree(from: string, to: string): void {
  const stat = fs.lstatSync(from);
  if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
  else if (stat.isDirectory()) {
    fs.mkdirSync(to);
    fs.chmodSync(to, 0o755);
    for (const entry of fs.readdirSync(from)) placeTree(path.join(from, entry), path.join(to, entry));
  } else placeFile(from, to, stat);
}

function placeFile(from: string, to: string, stat: fs.Stats): void {
  // A hard link shares the file's mode: only a file that others may read already can be linked.
  if ((stat.mode & 0o004) !== 0) {
    try {
      fs.linkSync(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw error;
    }
  }
  fs.copyFileSync(from, to);
  fs.chmodSync(to, stat.mode & 0o111 ? 0o755 : 0o644);
}
