import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PostgreSQL schema as SQL, and the schema name in it to replace (test/helpers/service.ts). */
    postgresSchema: { script: string; name: string } | null;
  }
}

export default async function globalSetup(project: TestProject): Promise<() => Promise<void>> {
  buildDist();
  project.onTestsRerun(() => buildDist()); // watch mode: sources may have changed since
  await checkPostgres();
  await vacuumCatalogues();
  const template = await migratedPostgresSchema();
  project.provide('postgresSchema', template?.schema ?? null);
  return async () => {
    await template?.drop();
  };
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

/**
 * Every test file makes and drops a schema of ~90 tables, and the machine's PostgreSQL runs without autovacuum: the
 * system catalogues keep every dropped row, about a million in pg_attribute per run of the suite, and making a schema
 * slows as they grow (CONTRIBUTING.md, "How long the suite takes"). Vacuumed before a run once past 500,000 dead rows
 * (3 s); a server that refuses (not a superuser) is left as it is.
 */
async function vacuumCatalogues(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ dead: string }>(
      "select coalesce(sum(n_dead_tup), 0) as dead from pg_stat_sys_tables where relname = 'pg_attribute'",
    );
    if (Number(rows[0]!.dead) < 500_000) return;
    await client.query(
      'vacuum pg_catalog.pg_attribute, pg_catalog.pg_class, pg_catalog.pg_depend, pg_catalog.pg_type, ' +
        'pg_catalog.pg_index, pg_catalog.pg_constraint, pg_catalog.pg_attrdef, pg_catalog.pg_sequence',
    );
  } catch (error) {
    console.warn(`the catalogues were not vacuumed: ${(error as Error).message}`);
  } finally {
    await client.end();
  }
}

/**
 * A schema migrated once for the whole run, as the SQL that makes it again (pg_dump): a test service's schema is made
 * from it in one statement instead of by the migrations one by one, which on PostgreSQL took two to three seconds
 * per file (CONTRIBUTING.md, "How long the suite takes"). Without pg_dump (or one that cannot dump this server) the
 * services migrate their schemas themselves, as before.
 */
async function migratedPostgresSchema() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return undefined;
  const name = `t_template_${crypto.randomBytes(6).toString('hex')}`;
  const { parseDatabaseUrl } = await import('../../src/config.ts');
  const { openStorage } = await import('../../src/storage/database.ts');
  const { migrateToLatest } = await import('../../src/storage/migrate.ts');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${name}`);
  await admin.end();
  const drop = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`drop schema if exists ${name} cascade`);
    await client.end();
  };
  const schemaUrl = new URL(url);
  schemaUrl.searchParams.set('options', `-c search_path=${name}`);
  const storage = openStorage(parseDatabaseUrl(schemaUrl.toString(), ROOT));
  try {
    await migrateToLatest(storage.db);
  } catch (error) {
    await storage.close();
    await drop();
    throw error;
  }
  await storage.close();
  let dump: string;
  try {
    dump = execFileSync(
      'pg_dump',
      ['--schema', name, '--inserts', '--no-owner', '--no-privileges', '--dbname', url],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    console.warn(`pg_dump failed, each test schema is migrated instead: ${(error as Error).message}`);
    await drop();
    return undefined;
  }
  // psql's own commands (`\restrict`) are not SQL: the script runs through the driver, not psql.
  const script = dump
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
  return { schema: { script, name }, drop };
}
