import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The reasoning lives in the repository (CONTRIBUTING.md, "Where the reasoning lives"): what the code and the
// documents cite must be there for a contributor who has only the clone.

const root = path.resolve(import.meta.dirname, '../..');
const SOURCE_FOLDERS = ['src', 'test', 'bench', 'scripts', 'bin', 'docs', '.ci'];
const TOP_FILES = ['README.md', 'CONTRIBUTING.md'];

function filesUnder(folder: string): string[] {
  const full = path.join(root, folder);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    if (!entry.isFile() || !/\.(ts|mjs|cjs|js|md|sh)$|^run$/.test(entry.name)) return [];
    return [path.relative(root, path.join(entry.parentPath, entry.name))];
  });
}

const files = [...SOURCE_FOLDERS.flatMap(filesUnder), ...TOP_FILES].filter(
  (file) => file !== path.relative(root, import.meta.filename),
);
/** A file's text with comment and list continuations joined, so that a reference broken over lines reads whole. */
const joined = (file: string) =>
  fs.readFileSync(path.join(root, file), 'utf8').replace(/\s*\n\s*(?:\/\/|\*|#(?!#))?\s*/g, ' ');

/**
 * The places a document can be cited by: its headings, and the lead words of its list items ("- Locks. ...",
 * "- **E-mail**: ...", "- The logo: ..."), without their markup.
 */
function anchorsOf(document: string): string[] {
  return fs
    .readFileSync(path.join(root, document), 'utf8')
    .split('\n')
    .flatMap((line) => {
      const heading = /^#+ (.*)$/.exec(line);
      if (heading) return [heading[1]!];
      const item = /^\s*- (?:\*\*)?([^*:.]+?)(?:\*\*)?[:.] /.exec(line);
      return item ? [item[1]!] : [];
    })
    .map((anchor) => anchor.replace(/[`*]/g, '').trim());
}

describe('references in the repository', () => {
  it('cite documents that exist, by sections they have', () => {
    const unresolved: string[] = [];
    const reference = /\b((?:docs|bench)\/[\w/.-]+\.md)(?:,?\s*(?:§\s*)?"([^"]+)")?/g;
    for (const file of files) {
      for (const [, document, section] of joined(file).matchAll(reference)) {
        if (!fs.existsSync(path.join(root, document!))) {
          unresolved.push(`${file}: ${document} does not exist`);
          continue;
        }
        const wanted = section?.replace(/[`*]/g, '').trim();
        if (wanted && !anchorsOf(document!).some((anchor) => anchor.startsWith(wanted)))
          unresolved.push(`${file}: ${document} has no section "${section}"`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it('never cite what a clone does not have: notes outside it, issue numbers, the shared folder', () => {
    const outside =
      /design note|\b[Ii]ssues? #?[0-9]|\.\.\/shared|\bshared\/(?:spec|design|fixtures)|STYLE\.md|BRIEF\.md|\bpoints? [0-9]/;
    const found = files.flatMap((file) =>
      fs
        .readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (outside.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
