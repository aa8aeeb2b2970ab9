import pg from 'pg';

/** Fails the run at once, with a clear message, when PostgreSQL is wanted but cannot be reached. */
export default async function checkPostgres(): Promise<void> {
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
