import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Storage } from '../../src/storage/database.ts';
import { killAll, runCli, waitFor } from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import { dialect, freshDatabase } from '../helpers/service.ts';

// What the cli*.test.ts files share: each test runs the real CLI (`node bin/billing.js ...`) as a child process
// against a database of its own.

export interface TestDatabase {
  dataDir: string;
  url: string;
  /** DATABASE_URL and DATA_DIR for the CLI. */
  env: Record<string, string>;
}

const cleanups: Array<() => Promise<void>> = [];

export async function newDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-cli-'));
  const database = await freshDatabase(dataDir);
  cleanups.push(async () => {
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { dataDir, url: database.url, env: { DATABASE_URL: database.url, DATA_DIR: dataDir } };
}

/** Opens the test database directly, to look at what the CLI left behind. */
export async function withDatabase<T>(db: TestDatabase, work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = openStorage(parseDatabaseUrl(db.url, db.dataDir));
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}

export function sqliteFile(db: TestDatabase): string {
  const target = parseDatabaseUrl(db.url, db.dataDir);
  if (target.dialect !== 'sqlite') throw new Error('not an SQLite database');
  return target.file;
}

/** The one line of JSON a `--json` command prints. */
export function singleJson(stdout: string): any {
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines, stdout).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

/** Kills every child still running, then drops the databases made so far: one set of them lives at a time. */
export async function releaseAll(): Promise<void> {
  await killAll();
  for (const cleanup of cleanups.splice(0)) await cleanup();
}

export const EXIT_0 = { code: 0, signal: null };

/**
 * The first account of a server started on an empty database. On SQLite (the embedded default) `serve` makes a demo
 * account, a test account, and prints its key; on PostgreSQL it prints how to make one instead, and the test makes
 * it with the CLI as the hint says, a test account too. Once either is printed, the signal handlers are in place.
 */
export async function firstAccount(
  server: RunningServer,
  env: Record<string, string>,
): Promise<{ accountId: number; apiKey: string }> {
  if (dialect === 'postgres') {
    await waitFor(server, 'the no-account hint was printed', () =>
      server
        .stdout()
        .includes(
          'No accounts yet: create one with `billing account create --name NAME`' +
            ' (add `--test` for a test account, whose clock you can move).',
        )
        ? true
        : undefined,
    );
    expect(server.stdout()).not.toContain('API key');
    const created = await runCli(['account', 'create', '--name', 'First', '--test', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const { accountID, apiKey } = singleJson(created.stdout);
    return { accountId: accountID, apiKey };
  }
  const match = await waitFor(
    server,
    'the demo account was printed',
    () =>
      /Created a demo account: id (\d+), API key (\S+) \(shown once; keep it\)\./.exec(server.stdout()) ??
      undefined,
  );
  expect(server.stdout()).toContain(`curl -u ${match[1]}:${match[2]} `);
  expect(server.stdout()).toContain(`${server.url}/v1/customers`);
  expect(server.stdout()).toContain(`${server.url}/v1/test-clock/advance`);
  return { accountId: Number(match[1]), apiKey: match[2]! };
}
