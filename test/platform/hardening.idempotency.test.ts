import { spawn } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.ts';
import { ROOT, api, basicAuth, killAll, killTransient, startServer, waitFor } from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import { dialect } from '../helpers/service.ts';
import { servedDatabase } from './hardening.fixtures.ts';
import type { ServedDatabase } from './hardening.fixtures.ts';

// A request killed (kill -9) after reserving its Idempotency-Key must not leave the key stuck: the retry, on the
// restarted server, runs the operation at once, and the operation is done exactly once.

const databases: ServedDatabase[] = [];
afterEach(killTransient);
afterAll(async () => {
  await killAll();
  for (const database of databases) await database.drop();
});

const KEY = 'pay-once-7f3a';

function paymentBody(customerId: number) {
  return {
    customerID: customerId,
    Amount: 25,
    CurrencyCode: 'USD',
    Date: '2026-03-05',
    Method: 'cash',
    AutoApply: true,
  };
}

function postPayment(server: RunningServer, database: ServedDatabase, customerId: number) {
  return fetch(`${server.url}/v1/payments`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(database.account.accountId, database.account.apiKey),
      'content-type': 'application/json',
      'idempotency-key': KEY,
    },
    body: JSON.stringify(paymentBody(customerId)),
    signal: AbortSignal.timeout(15_000),
  });
}

async function reservation(database: ServedDatabase) {
  const storage = database.open();
  try {
    return await storage.db
      .selectFrom('idempotency_keys')
      .select(['response_status', 'lease'])
      .where('idempotency_key', '=', KEY)
      .executeTakeFirst();
  } finally {
    await storage.close();
  }
}

async function paymentCount(database: ServedDatabase): Promise<number> {
  const storage = database.open();
  try {
    const row = await storage.db
      .selectFrom('payments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await storage.close();
  }
}

/**
 * Holds the payment mid-request. On PostgreSQL the test locks the customer's row, which a money movement locks
 * first, and waits until the server's transaction is blocked on it: the key is reserved, the payment not made. On
 * SQLite (one writer) the test holds the write lock, and the server, blocked on it inside a statement, stops
 * answering /healthz; the process killed there never committed its reservation (the next test covers a
 * reservation left by a killed process on both databases).
 */
async function holdMidRequest(server: RunningServer, database: ServedDatabase, customerId: number) {
  if (dialect === 'sqlite') {
    const locker = new BetterSqlite3(sqliteFile(database));
    locker.exec('begin immediate');
    return {
      blocked: () =>
        waitFor(server, 'the server blocked on the write lock', async () => {
          const healthy = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(500) }).then(
            () => true,
            () => false,
          );
          return healthy ? undefined : true;
        }),
      release: async () => {
        locker.exec('rollback');
        locker.close();
      },
    };
  }
  const locker = new pg.Client({ connectionString: database.url });
  await locker.connect();
  await locker.query('begin');
  await locker.query('select id from customers where id = $1 for update', [customerId]);
  const { rows } = await locker.query<{ pid: number }>('select pg_backend_pid() as pid');
  return {
    blocked: () =>
      waitFor(server, 'the payment waited on the customer lock', async () => {
        const blocked = await locker.query(
          'select 1 from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))',
          [rows[0]!.pid],
        );
        return blocked.rowCount ? true : undefined;
      }),
    release: async () => {
      await locker.query('rollback');
      await locker.end();
    },
  };
}

function sqliteFile(database: ServedDatabase): string {
  const target = parseDatabaseUrl(database.url, database.dataDir);
  if (target.dialect !== 'sqlite') throw new Error('not an SQLite database');
  return target.file;
}

it('lets the retry of a request killed mid-transaction run at once after a restart, exactly once', async () => {
  const database = await servedDatabase();
  databases.push(database);
  const first = await startServer(database.env);
  const customer = await api(first.url, database.account, 'POST', '/v1/customers', { Name: 'Ada' });
  expect(customer.status).toBe(201);
  const customerId: number = customer.body.customerID;

  const hold = await holdMidRequest(first, database, customerId);
  const killed = postPayment(first, database, customerId).catch((error: unknown) => error);
  await hold.blocked();
  if (dialect === 'postgres') {
    // While the first runs, a duplicate is told so (its process is alive).
    const duplicate = await postPayment(first, database, customerId);
    expect(duplicate.status).toBe(409);
    expect(((await duplicate.json()) as { code: string }).code).toBe('idempotency_key_in_progress');
  }
  first.child.kill('SIGKILL');
  expect((await first.exited).signal).toBe('SIGKILL');
  expect(await killed).toBeInstanceOf(Error);
  await hold.release();
  expect(await reservation(database)).toEqual(dialect === 'postgres' ? expect.anything() : undefined);

  const second = await startServer(database.env);
  const retry = await postPayment(second, database, customerId);
  expect(retry.status, await retry.clone().text()).toBe(201);
  const payment = (await retry.json()) as { paymentID: number; Amount: number };
  expect(payment.Amount).toBe(25);
  expect(await paymentCount(database)).toBe(1);

  const again = await postPayment(second, database, customerId);
  expect(again.status).toBe(201);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(((await again.json()) as { paymentID: number }).paymentID).toBe(payment.paymentID);
  expect(await paymentCount(database)).toBe(1);
  expect((await second.stop()).code).toBe(0);
}, 90_000);

it('treats a key reserved by a live process as in progress, and takes it over at once when that process is killed', async () => {
  const database = await servedDatabase();
  databases.push(database);
  const server = await startServer(database.env);
  const customer = await api(server.url, database.account, 'POST', '/v1/customers', { Name: 'Ada' });
  const customerId: number = customer.body.customerID;
  const reserver = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/platform/hardening.reserver.ts',
      String(database.account.accountId),
      KEY,
      'POST',
      '/v1/payments',
      JSON.stringify(paymentBody(customerId)),
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...database.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const reserverExited = new Promise((resolve) => reserver.once('close', resolve));
  try {
    let said = '';
    reserver.stdout.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
    await waitFor(server, 'the other process reserved the key', () =>
      said.includes('reserved') ? true : undefined,
    );
    expect((await reservation(database))?.lease).toEqual(expect.any(String));

    const whileAlive = await postPayment(server, database, customerId);
    expect(whileAlive.status).toBe(409);
    expect(((await whileAlive.json()) as { code: string }).code).toBe('idempotency_key_in_progress');

    reserver.kill('SIGKILL');
    await reserverExited;
    const afterDeath = await postPayment(server, database, customerId);
    expect(afterDeath.status, await afterDeath.clone().text()).toBe(201);
    expect(await paymentCount(database)).toBe(1);
    expect(await reservation(database)).toEqual({ response_status: 201, lease: null });
    expect((await server.stop()).code).toBe(0);
  } finally {
    reserver.kill('SIGKILL');
  }
}, 90_000);
