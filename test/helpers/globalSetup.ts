import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default async function globalSetup(project: TestProject): Promise<void> {
  buildDist();
  project.onTestsRerun(() => buildDist()); // watch mode: sources may have changed since
  await checkPostgres();
}

/**
 * Tests that spawn the CLI run bin/billing.js, that is dist/: what ships. It is rebuilt from the current sources
 * before every run (incremental: instant when nothing changed), so a stale dist/ is never tested.
 */
function buildDist(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
}

/** Fails the run at once, with a clear message, when PostgreSQL is wanted but cannot be reached. */
async function checkPostgres(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL is set but PostgreSQL is unreachable (${(error as Error).message})`);
  } finally {
    await client.end().catch(() => {});
  }
}
