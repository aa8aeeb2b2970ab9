import pg from 'pg';

/**
 * Each test file's PostgreSQL database is a database of its own, copied from the one globalSetup migrated
 * (CONTRIBUTING.md, "How long the suite takes"); its tables are in the schema `TEST_SCHEMA`, which its URL names as
 * the search_path, as a deployment may name its own.
 */
export const TEST_SCHEMA = 'billing';

/**
 * `base` (TEST_DATABASE_URL) with the database `name`, its search_path `TEST_SCHEMA`, and commits that do not wait on
 * fsync: a commit is answered before its WAL reaches the disk, so nothing is lost unless the PostgreSQL server itself
 * crashes, which no test does (the kill -9 tests kill our processes).
 */
export function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  url.searchParams.set('options', `-c search_path=${TEST_SCHEMA} -c synchronous_commit=off`);
  return url.toString();
}

/**
 * The names of a run's databases: its template `t_<run>_template` (test/helpers/globalSetup.ts) and each file's
 * `t_<run>_<suffix>`, so that the run's end finds and drops whatever of its own is left, and no other run's.
 */
export const templateName = (run: string): string => `t_${run}_template`;

/** `t_<run>_`: what every database of the run's template's run starts with. */
const runPrefix = (template: string): string => template.replace(/template$/, '');

export const testDatabaseName = (template: string, suffix: string): string => runPrefix(template) + suffix;

export const isTestDatabaseOf = (template: string, name: string): boolean =>
  name !== template && name.startsWith(runPrefix(template));

/** Runs one statement on its own connection to `url` (CREATE and DROP DATABASE cannot run in a transaction). */
export async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
