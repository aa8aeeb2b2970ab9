import os from 'node:os';
import { defineConfig } from 'vitest/config';

// The API suite runs once per dialect. PostgreSQL joins when TEST_DATABASE_URL is set; in CI it must be.
const postgresUrl = process.env.TEST_DATABASE_URL;
if (process.env.CI && !postgresUrl) {
  throw new Error(
    'CI is set but TEST_DATABASE_URL is not: the PostgreSQL half of the suite is mandatory in CI',
  );
}
if (!postgresUrl) {
  console.warn('TEST_DATABASE_URL is not set: running the API suite on SQLite only');
}

const dialectProject = (dialect: 'sqlite' | 'postgres') => ({
  extends: true as const,
  test: {
    name: dialect,
    include: ['test/**/*.test.ts'],
    // A file of PostgreSQL's own behaviour (`*.postgres.test.ts`) runs in the postgres project only. A page in a
    // browser (`*.browser.test.ts`) is tested once: its subject is what the page shows and does, the same over
    // either database, whose own behaviour the API tests cover twice (CONTRIBUTING.md, "How long the suite
    // takes"); it runs on PostgreSQL when there is one, on SQLite otherwise.
    exclude:
      dialect === 'sqlite'
        ? ['test/**/*.postgres.test.ts', ...(postgresUrl ? ['test/**/*.browser.test.ts'] : [])]
        : [],
    env: { TEST_DIALECT: dialect },
    setupFiles: ['test/helpers/perFile.ts'],
  },
});

// How long CI takes, and why these settings (CONTRIBUTING.md, "How long the suite takes"):
// - isolate: false. A file's worker goes on to the next file with the modules it loaded (loading the service's
//   modules anew for each file was a sixth of the suite's time); each file still gets a database of its own, and
//   test/helpers/perFile.ts closes whatever services a file leaves running.
// - maxWorkers: vitest's default is one worker less than the cores, which is one on a 2-core machine; the tests
//   wait on PostgreSQL, HTTP, child processes and a browser much of their time, so two files at a time on two cores.
const maxWorkers = Math.max(2, os.availableParallelism());

export default defineConfig({
  test: {
    pool: 'forks',
    isolate: false,
    maxWorkers,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/globalSetup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'scripts/**/*.test.ts'] },
      },
      dialectProject('sqlite'),
      ...(postgresUrl ? [dialectProject('postgres')] : []),
    ],
  },
});
