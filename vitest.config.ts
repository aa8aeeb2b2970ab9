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
    // A file of PostgreSQL's own behaviour (`*.postgres.test.ts`) runs in the postgres project only.
    exclude: dialect === 'sqlite' ? ['test/**/*.postgres.test.ts'] : [],
    env: { TEST_DIALECT: dialect },
  },
});

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/globalSetup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', 'bench/**/*.test.ts'] } },
      dialectProject('sqlite'),
      ...(postgresUrl ? [dialectProject('postgres')] : []),
    ],
  },
});
