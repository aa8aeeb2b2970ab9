import { spawn } from 'node:child_process';
import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.ts';
import { takeIdempotencyLease } from '../../src/http/idempotencyLease.ts';
import { ROOT, api, basicAuth, killAll, killTransient, startServer, waitFor } from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import { dialect } from '../helpers/service.ts';
import { startFresh } from '../helpers/testService.ts';
import { servedDatabase, servedDatabaseOf } from './hardening.fixtures.ts';
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

function postPayment(
  server: Pick<RunningServer, 'url'>,
  database: ServedDatabase,
  customerId: number,
  change: Partial<ReturnType<typeof paymentBody>> = {},
) {
  return fetch(`${server.url}/v1/payments`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(database.account.accountId, database.account.apiKey),
      'content-type': 'application/json',
      'idempotency-key': KEY,
    },
    body: JSON.stringify({ ...paymentBody(customerId), ...change }),
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
type Wait = (what: string, check: () => Promise<true | undefined>) => Promise<unknown>;

/** Polls `check` until it holds, for a service running in this process (waitFor watches a child). */
const poll: Wait = async (what, check) => {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

async function holdMidRequest(
  server: RunningServer,
  database: ServedDatabase,
  customerId: number,
  wait: Wait = (what, check) => waitFor(server, what, check),
) {
  if (dialect === 'sqlite') {
    const locker = new BetterSqlite3(sqliteFile(database));
    locker.exec('begin immediate');
    return {
      blocked: () =>
        wait('the server blocked on the write lock', async () => {
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
      wait('the payment waited on the customer lock', async () => {
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

/** Another process that reserves KEY for `body` at `url`, as a request of a server would, and waits to be killed. */
async function reserveInAnotherProcess(
  server: RunningServer,
  database: ServedDatabase,
  url: string,
  body: unknown,
  records: 'in-transaction' | 'after-commit',
) {
  const reserver = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/platform/hardening.reserver.ts',
      String(database.account.accountId),
      KEY,
      'POST',
      url,
      JSON.stringify(body),
      records,
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...database.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise((resolve) => reserver.once('close', resolve));
  let said = '';
  reserver.stdout.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
  await waitFor(server, 'the other process reserved the key', () =>
    said.includes('reserved') ? true : undefined,
  );
  return {
    async kill() {
      reserver.kill('SIGKILL');
      await exited;
    },
  };
}

it('treats a key reserved by a live process as in progress, refuses another request on it once that process is killed, and takes it over at once for the same request', async () => {
  const database = await servedDatabase();
  databases.push(database);
  const server = await startServer(database.env);
  const customer = await api(server.url, database.account, 'POST', '/v1/customers', { Name: 'Ada' });
  const customerId: number = customer.body.customerID;
  const reserver = await reserveInAnotherProcess(
    server,
    database,
    '/v1/payments',
    paymentBody(customerId),
    'in-transaction',
  );
  try {
    expect((await reservation(database))?.lease).toEqual(expect.any(String));

    const whileAlive = await postPayment(server, database, customerId);
    expect(whileAlive.status).toBe(409);
    expect(((await whileAlive.json()) as { code: string }).code).toBe('idempotency_key_in_progress');

    await reserver.kill();
    // The key still names another request: a different one is refused, however dead its holder.
    const different = await postPayment(server, database, customerId, { Amount: 30 });
    expect(different.status, await different.clone().text()).toBe(409);
    expect(((await different.json()) as { code: string }).code).toBe('idempotency_key_reused');
    expect(await paymentCount(database)).toBe(0);

    const afterDeath = await postPayment(server, database, customerId);
    expect(afterDeath.status, await afterDeath.clone().text()).toBe(201);
    expect(await paymentCount(database)).toBe(1);
    expect(await reservation(database)).toEqual({ response_status: 201, lease: null });
    expect((await server.stop()).code).toBe(0);
  } finally {
    await reserver.kill();
  }
}, 90_000);

it('keeps the abandonment delay for a killed process whose operation records its response after its commit', async () => {
  const database = await servedDatabase();
  databases.push(database);
  const server = await startServer(database.env);
  // A customer creation records its response in onSend, after its transaction commits: a process killed in
  // between may have created the customer, so a retry must not run it again at once.
  const body = { Name: 'Grace' };
  const reserver = await reserveInAnotherProcess(server, database, '/v1/customers', body, 'after-commit');
  await reserver.kill();
  const retry = await fetch(`${server.url}/v1/customers`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(database.account.accountId, database.account.apiKey),
      'content-type': 'application/json',
      'idempotency-key': KEY,
    },
    body: JSON.stringify(body),
  });
  expect(retry.status, await retry.clone().text()).toBe(409);
  expect(((await retry.json()) as { code: string }).code).toBe('idempotency_key_in_progress');
  expect((await reservation(database))?.response_status).toBeNull();
  expect((await server.stop()).code).toBe(0);
}, 90_000);

it('rolls back a money movement whose key another process took over while it ran, and records nothing', async () => {
  // Another process's reservation, alive: on PostgreSQL the test's own session holds its advisory lock.
  const otherLease = dialect === 'postgres' ? 'pg:424242#0a0b0c0d' : 'proc:elsewhere/-/-/1/-/0a0b0c0d';
  const takeOverSql = 'update idempotency_keys set lease = $1 where idempotency_key = $2';
  // SQLite: the takeover is made right after the request marked its key, before its transaction starts (the
  // service is in this process, and a query is reported synchronously as it completes). PostgreSQL: while the
  // request's transaction waits on the customer's row, locked by the test.
  let takeOverNow: (() => void) | undefined;
  const service = await startFresh({
    onQuery: (text) => {
      if (takeOverNow && text.includes('set "records_in_transaction" =')) {
        takeOverNow();
        takeOverNow = undefined;
      }
    },
  });
  const database = servedDatabaseOf(service);
  const customer = await api(service.url, database.account, 'POST', '/v1/customers', { Name: 'Ada' });
  const customerId: number = customer.body.customerID;
  const server = { url: service.url } as RunningServer; // only its url is used (holdMidRequest is given poll)
  let response: Response;
  if (dialect === 'sqlite') {
    takeOverNow = () => {
      const other = new BetterSqlite3(sqliteFile(database));
      other.prepare(takeOverSql.replace(/\$\d/g, '?')).run(otherLease, KEY);
      other.close();
    };
    response = await postPayment(server, database, customerId);
    expect(takeOverNow).toBeUndefined();
  } else {
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock(424242)');
      const hold = await holdMidRequest(server, database, customerId, poll);
      const pending = postPayment(server, database, customerId);
      await hold.blocked();
      await other.query(takeOverSql, [otherLease, KEY]);
      await hold.release();
      response = await pending;
    } finally {
      await other.end();
    }
  }
  expect(response.status, await response.clone().text()).toBe(409);
  expect(((await response.json()) as { code: string }).code).toBe('idempotency_key_in_progress');
  expect(await paymentCount(database)).toBe(0);
  expect(await reservation(database)).toEqual({ response_status: null, lease: otherLease });
}, 90_000);

describe('process leases', () => {
  async function leaseTarget(database: ServedDatabase, applicationName?: string) {
    const target = parseDatabaseUrl(database.url, database.dataDir);
    if (target.dialect === 'sqlite' || applicationName === undefined) return target;
    const url = new URL(target.url);
    url.searchParams.set('application_name', applicationName);
    return { ...target, url: url.toString() };
  }

  it('judges two leases of one process alive to each other (two apps in one process)', async () => {
    const database = await servedDatabase();
    databases.push(database);
    const storage = database.open();
    const target = await leaseTarget(database);
    const one = await takeIdempotencyLease(target, storage.db);
    const two = await takeIdempotencyLease(target, storage.db);
    try {
      expect(one.id).not.toBe(two.id);
      expect(await one.isDead(two.id)).toBe(false);
      expect(await two.isDead(one.id)).toBe(false);
    } finally {
      await one.close();
      await two.close();
      await storage.close();
    }
  });

  // SQLite only: its lease names a process; a PostgreSQL lease is an advisory lock (the next test).
  if (dialect === 'sqlite') {
    it('judges an SQLite lease by process start time and PID namespace, and one it cannot judge alive', async () => {
      const database = await servedDatabase();
      databases.push(database);
      const storage = database.open();
      const lease = await takeIdempotencyLease(parseDatabaseUrl(database.url, database.dataDir), storage.db);
      try {
        // proc:host/boot/pid-namespace/pid/start/random
        const [host, boot, namespace, pid, start] = lease.id.slice('proc:'.length).split('/');
        expect(Number(pid)).toBe(process.pid);
        expect(start).toMatch(/^\d+$/);
        const id = (fields: { namespace?: string; pid?: number; start?: string; boot?: string }) =>
          `proc:${host}/${fields.boot ?? boot}/${fields.namespace ?? namespace}/${fields.pid ?? pid}/${fields.start ?? start}/0a0b0c0d`;
        // Our pid, another start time: a process that had our pid before us (a restarted server) is gone.
        expect(await lease.isDead(id({ start: String(Number(start) - 1) }))).toBe(true);
        // Our pid and start time in another PID namespace (a container sharing our host name): cannot be judged.
        expect(await lease.isDead(id({ namespace: '1', start: String(Number(start) - 1) }))).toBe(false);
        expect(await lease.isDead(id({ boot: 'another-boot', start: String(Number(start) - 1) }))).toBe(
          false,
        );
        // A live process of ours (the test runner's parent) with its real start time, then with another one.
        const parent = process.ppid;
        const parentStart = fs.readFileSync(`/proc/${parent}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
        expect(await lease.isDead(id({ pid: parent, start: parentStart }))).toBe(false);
        expect(await lease.isDead(id({ pid: parent, start: `${parentStart}1` }))).toBe(true);
      } finally {
        await lease.close();
        await storage.close();
      }
    });
  }

  // PostgreSQL only: only its lease lives on a connection that can break.
  if (dialect === 'postgres') {
    it('gives up a PostgreSQL lease whose connection broke: its keys then wait out the abandonment delay', async () => {
      const database = await servedDatabase();
      databases.push(database);
      const storage = database.open();
      const name = `billing-lease-${process.pid}-${Date.now()}`;
      const lost: unknown[] = [];
      const lease = await takeIdempotencyLease(await leaseTarget(database, name), storage.db, (error) =>
        lost.push(error),
      );
      const other = await takeIdempotencyLease(await leaseTarget(database), storage.db);
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        const before = lease.id;
        expect(before).toMatch(/^pg:/);
        expect(await other.isDead(before)).toBe(false);
        // A PostgreSQL restart or a network drop, as far as this connection can tell.
        await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
          [name],
        );
        await poll('the lease to be given up', async () => (lease.id !== before ? true : undefined));
        expect(lost).toHaveLength(1);
        expect(lease.id).toMatch(/^lost:/);
        expect(await other.isDead(before)).toBe(true);
        expect(await other.isDead(lease.id)).toBe(false);
      } finally {
        await admin.end();
        await other.close();
        await lease.close().catch(() => {});
        await storage.close();
      }
    });
  }
});
