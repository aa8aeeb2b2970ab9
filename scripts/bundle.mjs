/**
 * Bundles the compiled service (dist/, from tsc) into dist/bundle/, what bin/billing.js runs: a command's process
 * loaded some 1 300 module files (dist/'s 800, Kysely's 260, TypeBox's 200), and resolving, reading and compiling
 * each one was most of its start (docs/operations.md, "Build and deploy").
 *
 * - Split at each dynamic `import()`, as dist/ is: `billing --help` loads the command line only, `billing migrate`
 *   the migrations, `billing serve` the service; a migration is a chunk of its own, loaded when applied.
 * - Packages stay outside (imported from node_modules as before) unless named in INLINE: pure code, not loaded by a
 *   package that stays outside (which would load a second copy), and finding no file by its own location.
 * - Each of our modules keeps its own `import.meta.url`, the URL of its compiled file in dist/: the files found
 *   relative to a module (package.json, fonts/, the portal's templates) are found as from dist/. The PDF threads'
 *   entry, found by src/server.ts beside itself, is an entry of the bundle beside the chunks (KEEP_OWN_URL).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DIST } from '../bin/buildState.mjs';

export const BUNDLE = path.join(DIST, 'bundle');

const ENTRIES = ['cli.js', 'documentWorker.js'];
const INLINE = new Set([
  '@sinclair/typebox',
  'big.js',
  'commander',
  'currency-codes',
  'fast-xml-parser',
  'ibantools',
  'kysely',
  'temporal-polyfill',
  'ulid',
]);
/** Modules whose `import.meta.url` is the chunk's: server.js finds the document worker, a bundle entry, beside it. */
const KEEP_OWN_URL = new Set([path.join(DIST, 'server.js')]);

const packageName = (specifier) => specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/');

/** Every output file is in dist/bundle/ itself, so a module's dist/ file is at the same place from any chunk. */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      INLINE.has(packageName(args.path)) ? undefined : { external: true },
    );
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(DIST + path.sep) || KEEP_OWN_URL.has(args.path)) return undefined;
      const source = await fs.promises.readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const own = path.relative(BUNDLE, args.path).split(path.sep).join('/');
      const url = `new URL(${JSON.stringify(own)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

/** Writes dist/bundle/ anew from dist/, with meta.json: which of its files holds which module. */
export async function bundleDist() {
  const esbuild = await import('esbuild');
  fs.rmSync(BUNDLE, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: ENTRIES.map((entry) => path.join(DIST, entry)),
    outdir: BUNDLE,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // A package inlined from CommonJS calls require(): each chunk gets one, resolving from dist/bundle/.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [ownImportMetaUrl],
  });
  fs.writeFileSync(path.join(BUNDLE, 'meta.json'), JSON.stringify(result.metafile));
}
