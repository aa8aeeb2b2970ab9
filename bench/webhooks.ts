/**
 * Webhook delivery benchmark (bench/README.md): events delivered per second by the service's webhook worker to a
 * local receiver, beside a floor measured in the same run: plain HTTP POSTs of the same body to the same receiver,
 * without the service (autocannon, as many connections as the worker keeps in flight to one endpoint).
 *
 *   npm run bench:webhooks                     SQLite, one process
 *   BENCH_DATABASE_URL=postgres://... npm run bench:webhooks   then PostgreSQL with one, then two processes
 *
 * The deliveries are written straight into the database while the endpoint is disabled, then the endpoint is
 * enabled and the clock starts; it stops when the receiver has had every event. The receiver runs in a child
 * process of its own (so that neither the floor's load generator nor the service shares its event loop) and
 * counts requests per webhook-id: a duplicate fails the run. Everything stays on 127.0.0.1.
 *
 * Settings: BENCH_WEBHOOK_EVENTS (events per measurement, default 2000), BENCH_SECONDS (the floor's length, default
 * 5). The figures depend on the machine and its load; `vsFloor` is the share of the bare receiver's POST rate kept.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { parseDatabaseUrl } from '../src/config.ts';
import { createSecretBox } from '../src/security/secretBox.ts';
import type { Db } from '../src/storage/database.ts';
import { openStorage } from '../src/storage/database.ts';
import {
  BenchError,
  forEachDialect,
  formatTable,
  log,
  printJsonLine,
  round,
  runBenchmark,
  setting,
  sleep,
} from './common.ts';
import type { Dialect } from './common.ts';
import {
  HOST,
  createAccount,
  freePort,
  postgresSetup,
  serviceEnv,
  sqliteSetup,
  startServer,
  stopServer,
  waitForHealth,
} from './harness.ts';
import type { DialectSetup, ServerProcess } from './harness.ts';

const EVENTS = setting('BENCH_WEBHOOK_EVENTS', 2000, 10, 100_000);
const FLOOR_SECONDS = setting('BENCH_SECONDS', 5, 1, 600);
/** The worker's default per-endpoint limit: the floor uses as many connections. */
const IN_FLIGHT = 10;
const DELIVERY_TIMEOUT_MS = 300_000;

// A receiver that answers 200 to every POST and counts webhook-ids; GET /stats reports, POST /reset clears.
const RECEIVER_SCRIPT = `
const http = require('node:http');
let received = 0, duplicates = 0; const seen = new Set();
const server = http.createServer((req, res) => {
  if (req.method === 'GET') { res.end(JSON.stringify({ received, unique: seen.size, duplicates })); return; }
  if (req.url === '/reset') { received = 0; duplicates = 0; seen.clear(); res.end(); return; }
  req.resume();
  req.on('end', () => {
    received++;
    const id = req.headers['webhook-id'];
    if (id) { if (seen.has(id)) duplicates++; else seen.add(id); }
    res.end();
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

interface Receiver {
  url: string;
  child: ChildProcess;
  stats(): Promise<{ received: number; unique: number; duplicates: number }>;
  reset(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const child = spawn(process.execPath, ['-e', RECEIVER_SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', () => reject(new BenchError('the receiver exited before listening')));
  });
  const url = `http://${HOST}:${port}`;
  return {
    url,
    child,
    stats: async () => (await (await fetch(`${url}/stats`)).json()) as Awaited<ReturnType<Receiver['stats']>>,
    reset: async () => void (await fetch(`${url}/reset`, { method: 'POST' })).arrayBuffer(),
  };
}

/** An event body of the usual size: a customer as the API shows it. */
function samplePayload(id: string, accountId: number): string {
  const customer: Record<string, unknown> = { customerID: 1, Name: 'Ada', LastName: 'Lovelace' };
  for (const field of [
    'Email',
    'Phone',
    'Address1',
    'Address2',
    'City',
    'State',
    'Zip',
    'Country',
    'Notes',
  ]) {
    customer[field] = `${field} of a customer, long enough to look like real data`;
  }
  return JSON.stringify({
    id,
    type: 'customer.created',
    timestamp: '2026-05-01T08:00:00.000Z',
    accountID: accountId,
    resource: { type: 'customer', id: 1, version: 1 },
    data: { object: customer },
  });
}

async function floor(receiver: Receiver): Promise<number> {
  const body = samplePayload('evt_floor', 1);
  const result = await autocannon({
    url: `${receiver.url}/hook`,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    connections: IN_FLIGHT,
    duration: FLOOR_SECONDS,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new BenchError('the floor load had failures');
  return result.requests.average;
}

/** Writes `count` events with a pending delivery each to the (disabled) endpoint. */
async function seed(
  db: Db,
  accountId: number,
  endpointId: number,
  count: number,
  tag: string,
): Promise<void> {
  const now = new Date(Date.parse('2026-05-01T08:00:00.000Z')).toISOString();
  for (let at = 0; at < count; at += 500) {
    const ids = Array.from({ length: Math.min(500, count - at) }, (_, i) => `evt_bench_${tag}_${at + i}`);
    await db
      .insertInto('events')
      .values(
        ids.map((id, i) => ({
          id,
          account_id: accountId,
          type: 'customer.created',
          occurred_at: now,
          recorded_at: now,
          resource_type: 'customer',
          resource_id: String(at + i),
          resource_version: 1,
          payload: samplePayload(id, accountId),
        })),
      )
      .execute();
    await db
      .insertInto('webhook_deliveries')
      .values(
        ids.map((id) => ({
          account_id: accountId,
          endpoint_id: endpointId,
          event_id: id,
          status: 'pending' as const,
          attempts: 0,
          next_attempt_at: null,
          created_at: now,
        })),
      )
      .execute();
  }
}

interface Delivered {
  processes: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  vsFloor: number;
}

async function deliverAll(
  db: Db,
  receiver: Receiver,
  endpointId: number,
  processes: number,
  floorRps: number,
): Promise<Delivered> {
  await receiver.reset();
  await db.updateTable('webhook_endpoints').set({ status: 'enabled' }).where('id', '=', endpointId).execute();
  const started = performance.now();
  for (;;) {
    const stats = await receiver.stats();
    if (stats.duplicates > 0) throw new BenchError(`${stats.duplicates} events were delivered twice`);
    if (stats.unique >= EVENTS) break;
    if (performance.now() - started > DELIVERY_TIMEOUT_MS) {
      throw new BenchError(
        `only ${stats.unique} of ${EVENTS} events delivered in ${DELIVERY_TIMEOUT_MS / 1000} s`,
      );
    }
    await sleep(20);
  }
  const seconds = (performance.now() - started) / 1000;
  await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled' })
    .where('id', '=', endpointId)
    .execute();
  const eventsPerSecond = EVENTS / seconds;
  return {
    processes,
    events: EVENTS,
    seconds: round(seconds, 2),
    eventsPerSecond: round(eventsPerSecond, 0),
    vsFloor: round(eventsPerSecond / floorRps, 3),
  };
}

async function benchDialect(setup: DialectSetup, tempDir: string, receiver: Receiver, floorRps: number) {
  const dataDir = path.join(tempDir, `data-${setup.dialect}`);
  await fs.mkdir(dataDir, { recursive: true });
  const baseEnv = serviceEnv(setup.databaseUrl, dataDir, 0);
  const credentials = await createAccount(baseEnv, 'Bench webhooks');
  const storage = openStorage(parseDatabaseUrl(setup.databaseUrl, dataDir));
  const servers: ServerProcess[] = [];
  try {
    const db = storage.db;
    const secrets = createSecretBox(Buffer.from(baseEnv.ENCRYPTION_KEY!, 'base64'));
    const now = new Date(Date.parse('2026-05-01T08:00:00.000Z')).toISOString();
    const endpoint = await db
      .insertInto('webhook_endpoints')
      .values({
        account_id: credentials.accountID,
        url: `${receiver.url}/hook`,
        description: null,
        enabled_events: '["*"]',
        status: 'disabled',
        disabled_reason: null,
        secret_sealed: secrets.seal(`whsec_${crypto.randomBytes(32).toString('base64')}`),
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();

    const start = async () => {
      const port = await freePort();
      const server = startServer({
        ...serviceEnv(setup.databaseUrl, dataDir, port),
        ENCRYPTION_KEY: baseEnv.ENCRYPTION_KEY,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_PRIVATE_HOSTS: HOST,
        WORKER_INTERVAL_MS: '100',
      });
      servers.push(server);
      await waitForHealth(`http://${HOST}:${port}`, server);
    };
    const results: Delivered[] = [];
    const counts = setup.dialect === 'postgres' ? [1, 2] : [1];
    for (const processes of counts) {
      while (servers.length < processes) await start();
      log(`${setup.dialect}: ${EVENTS} events, ${processes} process${processes > 1 ? 'es' : ''}`);
      await seed(db, credentials.accountID, endpoint.id, EVENTS, `${processes}`);
      results.push(await deliverAll(db, receiver, endpoint.id, processes, floorRps));
    }
    return results;
  } finally {
    for (const server of servers) await stopServer(server);
    await storage.close().catch(() => {});
  }
}

async function main(): Promise<number> {
  const receiver = await startReceiver();
  try {
    log(`floor: POST to the receiver, ${IN_FLIGHT} connections, ${FLOOR_SECONDS} s`);
    const floorRps = round(await floor(receiver), 0);
    const results = await forEachDialect({
      tempPrefix: 'billing-bench-webhooks-',
      sqlite: sqliteSetup,
      postgres: postgresSetup,
      bench: (setup, tempDir) => benchDialect(setup, tempDir, receiver, floorRps),
      print: (dialect: Dialect, rows: Delivered[]) => {
        const title = `Webhook delivery, ${dialect} (floor: ${floorRps} plain POSTs/s)`;
        const header = ['processes', 'events', 'seconds', 'events/s', 'vs floor'];
        const cells = rows.map((r) =>
          [r.processes, r.events, r.seconds, r.eventsPerSecond, r.vsFloor].map(String),
        );
        process.stdout.write(`${formatTable(title, header, cells)}\n`);
      },
    });
    printJsonLine('billing-webhooks', { floorPostsPerSecond: floorRps, events: EVENTS, results });
    return 0;
  } finally {
    receiver.child.kill('SIGTERM');
  }
}

await runBenchmark(main, 20 * 60_000);
