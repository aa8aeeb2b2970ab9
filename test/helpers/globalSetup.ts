import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { TEST_SCHEMA, adminQuery, databaseUrl, isTestDatabaseOf, templateName } from './postgresDatabases.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL database migrated once for the run, which test databases copy (test/helpers/service.ts). */
    postgresTemplate: string | null;
  }
}

export default async function globalSetup(project: TestProject): Promise<() => Promise<void>> {
  buildDist();
  project.onTestsRerun(() => buildDist()); // watch mode: sources may have changed since
  await checkPostgres();
  const template = await migratedPostgresTemplate();
  project.provide('postgresTemplate', template?.name ?? null);
  return async () => {
    await template?.dropWithTestDatabases();
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
 * A database migrated once for the whole run, which every test file's database copies (`create database … template`,
 * a copy of its files: CONTRIBUTING.md, "How long the suite takes"). Its tables are in the schema `TEST_SCHEMA`, as
 * every test database's are (test/helpers/service.ts). PostgreSQL copies a template only while nothing is connected to
 * it: the migration's connections are closed before the first file starts.
 */
async function migratedPostgresTemplate() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return undefined;
  const name = templateName(crypto.randomBytes(6).toString('hex'));
  const { parseDatabaseUrl } = await import('../../src/config.ts');
  const { openStorage } = await import('../../src/storage/database.ts');
  const { migrateToLatest } = await import('../../src/storage/migrate.ts');
  await adminQuery(url, `create database ${name}`);
  const drop = () => adminQuery(url, `drop database if exists ${name} with (force)`);
  try {
    await adminQuery(databaseUrl(url, name), `create schema ${TEST_SCHEMA}`);
    const storage = openStorage(parseDatabaseUrl(databaseUrl(url, name), ROOT));
    try {
      await migrateToLatest(storage.db);
    } finally {
      await storage.close();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return {
    name,
    /** Drops the template and every test database of the run that its file's worker did not drop. */
    async dropWithTestDatabases() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ datname: string }>('select datname from pg_database');
        for (const { datname } of rows.filter((row) => isTestDatabaseOf(name, row.datname))) {
          await client.query(`drop database if exists ${datname} with (force)`);
        }
      } finally {
        await client.end();
      }
      await drop();
    },
  };
}
