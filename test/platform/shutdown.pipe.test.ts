import { afterAll, afterEach, expect, it } from 'vitest';
import { api, killAll, killTransient, startServer } from '../helpers/cli.ts';
import { servedDatabase } from './hardening.fixtures.ts';
import type { ServedDatabase } from './hardening.fixtures.ts';

/** Generous for a loaded machine: a server stuck on its standard output never exits at all. */
const EXIT_WITHIN_MS = 10_000;

const databases: ServedDatabase[] = [];
afterEach(killTransient);
afterAll(async () => {
  await killAll();
  for (const database of databases) await database.drop();
});

it('exits at once with status 0 on SIGTERM when the reader of its standard output has gone', async () => {
  const database = await servedDatabase();
  databases.push(database);
  const server = await startServer({ ...database.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
  server.child.stdout!.destroy();
  // Every request logs two lines into the dead pipe.
  for (let i = 0; i < 20; i++) {
    expect((await api(server.url, database.account, 'GET', '/v1/customers')).status).toBe(200);
  }
  // And a burst in flight as the signal arrives: log lines are still waiting to be written when it exits.
  const burst = Array.from({ length: 200 }, () =>
    api(server.url, database.account, 'GET', '/v1/customers').catch(() => undefined),
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  const result = await server.stop('SIGTERM', EXIT_WITHIN_MS);
  await Promise.all(burst);
  expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
}, 30_000);

it('exits at once with status 0 on SIGTERM when the reader of its standard output stopped reading', async () => {
  const database = await servedDatabase();
  databases.push(database);
  const server = await startServer({ ...database.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
  server.child.stdout!.pause();
  // Far more than a pipe holds (64 KiB on Linux): the server's writes to standard output can no longer complete.
  for (let round = 0; round < 10; round++) {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => api(server.url, database.account, 'GET', '/v1/customers')),
    );
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
  }
  const result = await server.stop('SIGTERM', EXIT_WITHIN_MS);
  expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
}, 30_000);
