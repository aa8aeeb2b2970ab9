import http from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCustomer, createPlan, subscribe } from '../helpers/billing.ts';
import { killTransient, postAcrossShutdown, runCli, startServer, waitFor } from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import type { TestAccount } from '../helpers/service.ts';
import { startSmtpReceiver } from '../helpers/smtp.ts';
import { newDatabase, releaseAll, singleJson, withDatabase } from './cli.fixtures.ts';
import type { TestDatabase } from './cli.fixtures.ts';

// `billing serve --workers 2`, run as real processes: a primary and two workers on one port and one database
// (docs/operations.md, "Scaling out"). Which process answered a request is read from its log line: every line
// carries its process's pid, and `request completed` the request's id, which the test chooses.

afterEach(killTransient);
afterAll(releaseAll);

const LOGGED = { LOG_LEVEL: 'info', LOG_FORMAT: 'json' };

interface LogLine {
  pid: number;
  msg: string;
  reqId?: string;
  workerPid?: number;
  invoices?: number;
}

function logLines(server: RunningServer): LogLine[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** The pids of the workers that have listened so far, in order (a replaced worker's too). */
function listeningWorkers(server: RunningServer): number[] {
  return logLines(server)
    .filter((line) => line.msg === 'worker listening')
    .map((line) => line.workerPid!);
}

async function startCluster(db: TestDatabase, env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer({ ...db.env, ...LOGGED, ...env }, { args: ['serve', '--workers', '2'] });
  // The call above returns once one worker answers; the second starts after it.
  await waitFor(server, 'both workers listened', () =>
    listeningWorkers(server).length >= 2 ? true : undefined,
  );
  return server;
}

/** GET /healthz on a connection of its own (so each request is a new connection for the primary to hand out). */
function healthz(server: RunningServer, requestId: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${server.url}/healthz`,
      { agent: false, headers: { 'x-request-id': requestId } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
  });
}

/** Which process answered each of `count` requests on new connections: their pids, by request id. */
async function answeringPids(server: RunningServer, label: string, count: number): Promise<Set<number>> {
  const ids = Array.from({ length: count }, (_, i) => `${label}-${i}`);
  for (const id of ids) expect(await healthz(server, id)).toBe(200);
  const lines = await waitFor(server, 'every request was logged', () => {
    const found = logLines(server).filter((line) => line.reqId && ids.includes(line.reqId));
    return found.length === count ? found : undefined;
  });
  return new Set(lines.map((line) => line.pid));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function firstAccount(db: TestDatabase, options: string[] = []) {
  const created = await runCli(['account', 'create', '--name', 'Shop', '--json', ...options], db.env);
  expect(created.code, created.stderr).toBe(0);
  const { accountID, apiKey } = singleJson(created.stdout);
  return { accountId: accountID as number, apiKey: apiKey as string };
}

/** The API of the cluster at `base` as `credentials`, in the shape the billing helpers take. */
function accountAt(base: string, credentials: { accountId: number; apiKey: string }): TestAccount {
  const authorization = `Basic ${Buffer.from(`${credentials.accountId}:${credentials.apiKey}`).toString('base64')}`;
  return {
    ...credentials,
    async request(method, urlPath, options = {}) {
      const response = await fetch(base + urlPath, {
        method,
        headers: {
          authorization,
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        text,
        body: text ? JSON.parse(text) : undefined,
      };
    },
  };
}

// Each test starts a cluster of three processes and stops it, some kill or replace one: seconds each, past the
// default 30 s with the suite's other worker busy on a slow machine (two workers billing and mailing through real
// SMTP took about 16 s alone).
describe('billing serve --workers 2', { timeout: 90_000 }, () => {
  it('answers from two worker processes; a worker killed is replaced; SIGTERM stops them all with 0', async () => {
    const db = await newDatabase();
    const server = await startCluster(db);
    const workers = listeningWorkers(server);
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(server.child.pid);

    // The primary hands new connections to its workers in turn.
    expect(await answeringPids(server, 'before', 4)).toEqual(new Set(workers));

    const [killed, survivor] = workers as [number, number];
    process.kill(killed, 'SIGKILL');
    const replacement = await waitFor(server, 'the killed worker was replaced', () =>
      listeningWorkers(server).find((pid) => !workers.includes(pid)),
    );
    expect(logLines(server).some((line) => line.msg === 'worker died: starting another')).toBe(true);
    expect(isRunning(killed)).toBe(false);
    expect(await answeringPids(server, 'after', 4)).toEqual(new Set([survivor, replacement]));

    const result = await server.stop('SIGTERM', 30_000);
    expect({ code: result.code, signal: result.signal }, result.stderr).toEqual({ code: 0, signal: null });
    expect([survivor, replacement].filter(isRunning)).toEqual([]);
    const stopping = logLines(server).filter(
      (line) => line.msg === 'shutting down: finishing in-flight requests',
    );
    expect(new Set(stopping.map((line) => line.pid))).toEqual(new Set([survivor, replacement]));
  });

  /**
   * A POST in flight while `stop` stops the cluster: it is answered 201 and stored, and every process exits, the
   * primary with 0.
   */
  async function expectInFlightFinished(stop?: (server: RunningServer, workers: number[]) => Promise<void>) {
    const db = await newDatabase();
    const credentials = await firstAccount(db);
    const server = await startCluster(db);
    const workers = listeningWorkers(server);

    const answer = await postAcrossShutdown(
      server,
      credentials,
      '/v1/customers',
      { Name: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' },
      false,
      stop && ((running) => stop(running, workers)),
    );
    expect(answer.status, answer.text).toBe(201);
    const result = await server.exit(30_000);
    expect({ code: result.code, signal: result.signal }, result.stderr).toEqual({ code: 0, signal: null });
    expect(workers.filter(isRunning)).toEqual([]);
    const names = await withDatabase(db, (storage) =>
      storage.db.selectFrom('customers').select('name').execute(),
    );
    expect(names).toEqual([{ name: 'Ada' }]);
  }

  it('finishes a request in flight when the primary is told to stop, then exits 0', async () => {
    await expectInFlightFinished();
  });

  it('finishes a request in flight when SIGTERM reaches the whole process group, as systemd sends it', async () => {
    // A signal to the process group reaches the workers and the primary, which then sends the workers its own.
    // Staged in that order: the workers' signal first, the primary's once they are stopping. The second signal a
    // worker gets must not cut the stop the first began.
    await expectInFlightFinished(async (server, workers) => {
      for (const pid of workers) process.kill(pid, 'SIGTERM');
      await waitFor(server, 'both workers are stopping', () => {
        const stopping = logLines(server).filter(
          (line) => line.msg === 'shutting down: finishing in-flight requests',
        );
        return stopping.length === 2 ? true : undefined;
      });
      server.child.kill('SIGTERM');
    });
  });

  it('bills each due subscription once and mails each invoice once, both workers running the bill run', async () => {
    const smtp = await startSmtpReceiver();
    try {
      const db = await newDatabase();
      const credentials = await firstAccount(db, ['--test']);
      const server = await startCluster(db, {
        BILLING_INTERVAL_MS: '100',
        WORKER_INTERVAL_MS: '100',
        SMTP_URL: smtp.url,
      });
      const shop = accountAt(server.url, credentials);
      const { test_clock_at: clockAt } = await withDatabase(db, (storage) =>
        storage.db
          .selectFrom('accounts')
          .select('test_clock_at')
          .where('id', '=', credentials.accountId)
          .executeTakeFirstOrThrow(),
      );
      const day = (days: number) =>
        new Date(new Date(clockAt!).getTime() + days * 86_400_000).toISOString().slice(0, 10);

      // The clock moves a week past the due day, when a reminder of each unpaid invoice would go too
      // (docs/gateways.md, "The collection loop"): this test counts the invoices' own e-mails.
      const reminders = await shop.request('PUT', '/v1/account', { body: { SendInvoiceReminders: false } });
      expect(reminders.status).toBe(204);
      // K subscriptions starting in 3 days: nothing is due until the account's clock passes that day.
      const K = 12;
      const plan = await createPlan(shop, { chargePrice: 25 });
      for (let i = 0; i < K; i++) {
        const customerId = await createCustomer(shop, {
          Email: `customer${i}@example.com`,
          autoSendInvoice: true,
        });
        await subscribe(shop, customerId, plan, { StartDate: day(3) });
      }
      expect(await invoiceCount(db)).toBe(0);

      // The clock moved in the database: the API's advance would bill in its own request, in one process,
      // while here every worker's next round finds the same K subscriptions due.
      await withDatabase(db, (storage) =>
        storage.db
          .updateTable('accounts')
          .set({ test_clock_at: `${day(10)}T00:00:00.000Z` })
          .where('id', '=', credentials.accountId)
          .execute(),
      );
      await waitFor(
        server,
        `${K} invoices were mailed`,
        () => (smtp.messages.length >= K ? true : undefined),
        60_000,
      );

      // Stopped gracefully, the workers finish their rounds: whatever either would still bill or send is in.
      const result = await server.stop('SIGTERM', 30_000);
      expect(result.code, result.stderr).toBe(0);
      expect(await invoiceCount(db)).toBe(K);
      const recipients = smtp.messages.flatMap((message) => message.to).sort();
      expect(recipients).toEqual(Array.from({ length: K }, (_, i) => `customer${i}@example.com`).sort());
      const billed = logLines(server).filter((line) => line.msg === 'bill run');
      expect(billed.reduce((sum, line) => sum + (line.invoices ?? 0), 0)).toBe(K);
      const outbox = await withDatabase(db, (storage) =>
        storage.db.selectFrom('mail_outbox').select('status').execute(),
      );
      expect(outbox.map((row) => row.status)).toEqual(Array(K).fill('sent'));
    } finally {
      await smtp.close();
    }
  });
});

describe('billing serve --workers N that cannot start', () => {
  it('reports a port in use once and exits 1, forking no other worker', async () => {
    const db = await newDatabase();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const result = await runCli(
        ['serve', '--workers', '3'],
        { ...db.env, PORT: String(port), HOST: '127.0.0.1' },
        60_000,
      );
      expect({ code: result.code, signal: result.signal }, result.stdout).toEqual({ code: 1, signal: null });
      expect(result.stderr).toBe(
        `Error: cannot listen on 127.0.0.1:${port}: the port is already in use (set PORT or HOST)\n`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('refuses a --workers that is not a count from 1 to 256 with exit status 2', async () => {
    const db = await newDatabase();
    for (const value of ['0', '257', 'two']) {
      const result = await runCli(['serve', '--workers', value], db.env);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`option '--workers <n>' argument '${value}' is invalid`);
    }
  });
});

async function invoiceCount(db: TestDatabase): Promise<number> {
  return withDatabase(db, async (storage) => {
    const rows = await storage.db.selectFrom('invoices').select('id').execute();
    return rows.length;
  });
}
