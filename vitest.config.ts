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

/**
 * Files whose subject is the same over either database, run once (CONTRIBUTING.md, "How long the suite takes"):
 * each database's own behaviour under them is covered twice by the API tests. A page in a browser
 * (`*.browser.test.ts`) is about what the page shows and does; these others are about the command line's text and
 * arguments, the portal's sign-in (throttles held in the process; scrypt at its full cost in portal.signInCost), the
 * log's lines and the /docs page. They run on SQLite, where such a file took about half as long as on PostgreSQL (a
 * browser file about as long).
 */
const ONCE = [
  'test/**/*.browser.test.ts',
  'test/platform/cli.gateway.test.ts',
  'test/platform/cli.errors.test.ts',
  'test/platform/cli.help.test.ts',
  'test/platform/docs.page.test.ts',
  'test/platform/hardening.logs.test.ts',
  'test/portal/portal.signIn.test.ts',
  'test/portal/portal.signInCost.test.ts',
];

const dialectProject = (dialect: 'sqlite' | 'postgres') => ({
  extends: true as const,
  test: {
    name: dialect,
    include: ['test/**/*.test.ts'],
    // A file of PostgreSQL's own behaviour (`*.postgres.test.ts`) runs in the postgres project only; a file of ONCE
    // in the sqlite project only.
    exclude: dialect === 'sqlite' ? ['test/**/*.postgres.test.ts'] : ONCE,
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
