import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, killAll, killTransient, ROOT, runCli } from '../helpers/cli.ts';
import type { CliResult } from '../helpers/cli.ts';
import { runtimeForAnyUser } from '../helpers/runtimeForAnyUser.ts';
import type { RuntimeForAnyUser } from '../helpers/runtimeForAnyUser.ts';
import { freshDatabase } from '../helpers/service.ts';

// The `billing` command's failures, each run as a real child process: one line on standard error and no stack
// trace, exit status 2 for a wrong command line and 1 for a failure.

/** The process ended with `status`, and standard error is exactly one line: `line` (no "    at " frames). */
function expectOneLine(result: CliResult, status: number, line: string | RegExp): void {
  expect({ code: result.code, signal: result.signal }, result.stdout + result.stderr).toEqual({
    code: status,
    signal: null,
  });
  expect(result.stderr).not.toContain('    at ');
  expect(result.stderr.endsWith('\n'), result.stderr).toBe(true);
  const lines = result.stderr.slice(0, -1).split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  if (typeof line === 'string') expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
}

let dataDir: string;
let env: Record<string, string>;
let dropDatabase: () => Promise<void>;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-cli-errors-'));
  const database = await freshDatabase(dataDir);
  dropDatabase = database.drop;
  env = { DATABASE_URL: database.url, DATA_DIR: dataDir };
  const migrated = await runCli(['migrate'], env);
  expect(migrated.code, migrated.stderr).toBe(0);
});
afterEach(killTransient);
afterAll(async () => {
  await killAll();
  await dropDatabase();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a wrong command line: exit status 2', () => {
  it.each([
    [['run', '--bogus'], "error: unknown option '--bogus'"],
    [['frobnicate'], "error: unknown command 'frobnicate'"],
    [['key', 'create'], "error: required option '--account <id>' not specified"],
    [['key', 'revoke'], "error: missing required argument 'keyId'"],
    [
      ['key', 'revoke', 'abc'],
      "error: command-argument value 'abc' is invalid for argument 'keyId'. must be a positive whole number",
    ],
    [['key', 'list', '--account'], "error: option '--account <id>' argument missing"],
    [
      ['run', '--as-of', '2026-02-30'],
      `error: option '--as-of <date>': "2026-02-30" is not a date (YYYY-MM-DD, or an ISO 8601 date and time)`,
    ],
    [
      ['run', '--as-of', 'next tuesday'],
      `error: option '--as-of <date>': "next tuesday" is not a date (YYYY-MM-DD, or an ISO 8601 date and time)`,
    ],
    [
      ['account', 'create', '--name', 'Shop', '--time-zone', 'Mars/Olympus'],
      'Error: timeZone: "Mars/Olympus" is not an IANA time zone',
    ],
  ])('billing %j', async (args, line) => {
    expectOneLine(await runCli(args, env), 2, line);
  });

  it('a bad setting in the environment', async () => {
    expectOneLine(
      await runCli(['migrate'], { ...env, LOG_LEVEL: 'loud' }),
      2,
      /^Configuration error: LOG_LEVEL must be one of /,
    );
  });
});

describe('a failure: exit status 1', () => {
  it('an unknown account', async () => {
    expectOneLine(
      await runCli(['key', 'list', '--account', '424242'], env),
      1,
      'Error: Account 424242 was not found',
    );
    expectOneLine(
      await runCli(['run', '--account', '424242'], env),
      1,
      'Error: Account 424242 was not found',
    );
  });

  it('serve on a port already in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const result = await runCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' }, 30_000);
      expectOneLine(
        result,
        1,
        `Error: cannot listen on 127.0.0.1:${port}: the port is already in use (set PORT or HOST)`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('a database that cannot be reached, for a command and for serve', async () => {
    const port = await freePort(); // free a moment ago: nothing listens there
    const unreachable = { ...env, DATABASE_URL: `postgres://billing:secret@127.0.0.1:${port}/billing` };
    const line = `Error: cannot reach the database postgres://***@127.0.0.1:${port}/billing: connect ECONNREFUSED 127.0.0.1:${port}`;
    expectOneLine(await runCli(['migrate'], unreachable), 1, line);
    expectOneLine(await runCli(['account', 'create', '--name', 'Shop'], unreachable), 1, line);
    const serverPort = await freePort();
    expectOneLine(
      await runCli(['serve'], { ...unreachable, PORT: String(serverPort), HOST: '127.0.0.1' }, 30_000),
      1,
      line,
    );
  });
});

describe('a database file the service cannot write: exit status 1', () => {
  const asRoot = process.getuid?.() === 0;
  /**
   * As root the command runs as `nobody`, who may not be able to enter the checkout (a clone in a directory only
   * its owner can enter): it runs from a copy of what it needs that every user can read.
   */
  let runtime: RuntimeForAnyUser | undefined;
  beforeAll(async () => {
    // bin/billing.js builds dist/ first when a source is newer: the copy is of what runs now.
    const built = await runCli(['--version'], {});
    expect(built.code, built.stderr).toBe(0);
    if (asRoot) runtime = runtimeForAnyUser();
  });
  afterAll(() => runtime?.remove());

  /**
   * The SQLite file exists but this user may only read it (another user's file, mode 0644). As root, which may
   * write anything, the command runs as `nobody`; otherwise the file is made read-only for its owner.
   * dist/bundle/cli.js is run directly: bin/billing.js would try to rebuild dist/ as that user if another process
   * had just changed a source.
   */
  it.each([['migrate'], ['serve']])('billing %s stops with one line naming the file', async (command) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-readonly-db-'));
    try {
      const file = path.join(dir, 'db', 'billing.sqlite');
      fs.mkdirSync(path.dirname(file));
      fs.writeFileSync(file, '');
      fs.chmodSync(file, asRoot ? 0o644 : 0o444);
      for (const folder of [dir, path.dirname(file)]) fs.chmodSync(folder, 0o755);
      const dataDir = path.join(dir, 'data');
      fs.mkdirSync(dataDir, { mode: 0o777 });
      fs.chmodSync(dataDir, 0o777);
      const port = String(await freePort());
      const from = runtime?.root ?? ROOT;
      const result = spawnSync(
        runtime?.node ?? process.execPath,
        [path.join(from, 'dist', 'bundle', 'cli.js'), command],
        {
          cwd: from,
          env: {
            PATH: process.env.PATH ?? '',
            LOG_LEVEL: 'warn',
            DATABASE_URL: `sqlite:${file}`,
            DATA_DIR: dataDir,
            PORT: port,
            HOST: '127.0.0.1',
          },
          encoding: 'utf8',
          timeout: 20_000,
          ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        },
      );
      expectOneLine(
        { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr },
        1,
        `Error: cannot open the database file ${file} for writing (EACCES): give the service's user write access to it, or its ownership`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
