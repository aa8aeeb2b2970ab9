import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT, killAll, killTransient, runCli } from '../helpers/cli.ts';
import { freshDatabase } from '../helpers/service.ts';

// `billing --help` and `--version` as child processes: what they print, and that they load none of the service.

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-cli-help-'));
const env = { DATA_DIR: dataDir };
const RECORDER = path.join(ROOT, 'test', 'platform', 'fixtures', 'recordImports.mjs');

afterEach(killTransient);
afterAll(async () => {
  await killAll();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Which compiled modules and packages each file of dist/bundle/ holds (scripts/bundle.mjs writes meta.json). */
function bundledModules(): Map<string, string[]> {
  const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'bundle', 'meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return new Map(Object.entries(meta.outputs).map(([output, { inputs }]) => [output, Object.keys(inputs)]));
}

/**
 * The modules (file paths under the repository) a CLI run imports, as recorded by a module resolve hook: a file of
 * dist/bundle/ stands for the modules bundled into it, so the list names dist/'s modules and the packages' files.
 */
async function importsOf(args: string[], extraEnv: Record<string, string> = {}): Promise<string[]> {
  const record = path.join(dataDir, `imports-${args.join('-')}.txt`);
  fs.rmSync(record, { force: true });
  const result = await runCli(args, {
    ...env,
    ...extraEnv,
    NODE_OPTIONS: `--import=${RECORDER}`,
    RECORD_IMPORTS_FILE: record,
  });
  expect(result.code, result.stderr).toBe(0);
  const urls = fs.readFileSync(record, 'utf8').split('\n').filter(Boolean);
  const files = new Set(urls.filter((url) => url.startsWith('file:')).map((url) => new URL(url).pathname));
  const bundled = bundledModules();
  return [...files]
    .map((file) => path.relative(ROOT, file))
    .flatMap((file) => [file, ...(bundled.get(file) ?? [])]);
}

const SERVICE =
  /^(node_modules\/(fastify|kysely|better-sqlite3|pg|pdfkit|pino|nodemailer)\/|dist\/(server|app|storage\/|modules\/))/;

describe('billing --version', () => {
  it('prints the version of package.json', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const result = await runCli([flag], env);
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 0,
        stdout: `${version}\n`,
        stderr: '',
      });
    }
  });
});

describe('billing --help', () => {
  it('lists the commands and the version option', async () => {
    const result = await runCli(['--help'], env);
    expect(result.code, result.stderr).toBe(0);
    for (const command of ['serve', 'migrate', 'account', 'key', 'gateway', 'run', 'mail']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(result.stdout).toMatch(/^ {2}-v, --version +print the version$/m);
  });

  it('marks required options, and only those', async () => {
    const result = await runCli(['gateway', 'add', '--help'], env);
    expect(result.code, result.stderr).toBe(0);
    const option = (flag: string) => {
      const start = result.stdout.indexOf(`  ${flag} `);
      expect(start, flag).toBeGreaterThan(-1);
      // An option's description may wrap onto following lines, indented past the flags.
      const rest = result.stdout.slice(start + 2).split('\n');
      const continued = rest.slice(1).findIndex((line) => !/^ {10,}\S/.test(line));
      return rest
        .slice(0, continued + 1)
        .join(' ')
        .replace(/\s+/g, ' ');
    };
    for (const flag of ['--account <id>', '--type <type>', '--name <friendly>']) {
      expect(option(flag)).toMatch(/\(required\)$/);
    }
    for (const flag of ['--test-mode', '--primary', '--settings <json>', '--json']) {
      expect(option(flag)).not.toContain('(required)');
    }
  });

  it('loads neither the service, Fastify, Kysely nor a database driver (nor does --version)', async () => {
    for (const args of [['--help'], ['--version'], ['run', '--help']]) {
      const loaded = await importsOf(args);
      // The recorder saw the command itself: a list without the service in it means something.
      expect(loaded).toEqual(expect.arrayContaining(['bin/billing.js', 'dist/bundle/cli.js', 'dist/cli.js']));
      expect(loaded.filter((file) => SERVICE.test(file))).toEqual([]);
    }
  });

  it('while a command that uses the database loads them', async () => {
    const database = await freshDatabase(dataDir);
    try {
      const loaded = await importsOf(['migrate'], { DATABASE_URL: database.url });
      expect(loaded).toEqual(expect.arrayContaining(['dist/storage/database.js', 'dist/cli/runtime.js']));
      expect(loaded.some((file) => file.startsWith('node_modules/kysely/'))).toBe(true);
    } finally {
      await database.drop();
    }
  });
});
