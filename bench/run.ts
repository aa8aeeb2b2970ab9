/**
 * HTTP benchmark of the billing service: a real server in a child process on 127.0.0.1, autocannon in this one.
 *
 *   npm run bench                      SQLite only (a fresh temporary file)
 *   BENCH_DATABASE_URL=postgres://... npm run bench   SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Settings (environment): BENCH_SECONDS (measured seconds per route, default 10), BENCH_WARMUP_SECONDS (default 2),
 * BENCH_CONNECTIONS (default 10), BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL), BENCH_STRICT=1 (exit 1 when
 * the target is missed). See bench/README.md.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CATALOGUE_SIZE, seedCatalogue } from './catalogue.ts';
import {
  BenchError,
  HOST,
  PG_URL,
  active,
  basicAuth,
  createAccount,
  fire,
  formatTable,
  freePort,
  log,
  percentile,
  postgresSetup,
  round,
  runBenchmark,
  serviceEnv,
  setting,
  sleep,
  sqliteSetup,
  startServer,
  stopServer,
  waitForHealth,
} from './harness.ts';
import type { Dialect, DialectSetup, LoadSpec, Run } from './harness.ts';

/** The authenticated GET must reach at least this share of the floor's requests per second on SQLite. */
const TARGET_GET_VS_FLOOR = 0.5;

const SECONDS = setting('BENCH_SECONDS', 10, 1, 600);
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 2, 0, 60);
const CONNECTIONS = Math.round(setting('BENCH_CONNECTIONS', 10, 1, 1000));
const STRICT = process.env.BENCH_STRICT === '1';

type RouteKey = 'floor' | 'getCustomer' | 'createCustomer' | 'listPackages' | 'listComponents';

interface Figures {
  route: string;
  requestsPerSecond: number;
  requestsTotal: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** This route's requests per second over the floor's, measured in the same run. */
  vsFloor: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

const CUSTOMER_BODY = JSON.stringify({ Name: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' });

async function createCustomer(base: string, authorization: string): Promise<number> {
  const response = await fetch(`${base}/v1/customers`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: CUSTOMER_BODY,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 201) {
    throw new BenchError(`POST /v1/customers answered ${response.status} (expected 201): ${text}`);
  }
  const id = (JSON.parse(text) as { customerID?: unknown }).customerID;
  if (typeof id !== 'number')
    throw new BenchError(`POST /v1/customers returned no numeric customerID: ${text}`);
  const check = await fetch(`${base}/v1/customers/${id}`, {
    headers: { authorization },
    signal: AbortSignal.timeout(10_000),
  });
  const checkText = await check.text();
  if (check.status !== 200 || (JSON.parse(checkText) as { customerID?: unknown }).customerID !== id) {
    throw new BenchError(`GET /v1/customers/${id} answered ${check.status}: ${checkText}`);
  }
  return id;
}

interface RouteSpec extends LoadSpec {
  key: RouteKey;
}

async function measureRoutes(base: string, authorization: string, customerId: number) {
  const routes: RouteSpec[] = [
    { key: 'floor', label: 'GET /healthz (floor)', options: { url: `${base}/healthz` } },
    {
      key: 'getCustomer',
      label: 'GET /v1/customers/{id}',
      options: { url: `${base}/v1/customers/${customerId}`, headers: { authorization } },
    },
    {
      key: 'createCustomer',
      label: 'POST /v1/customers',
      options: {
        url: `${base}/v1/customers`,
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: CUSTOMER_BODY,
      },
    },
    {
      key: 'listPackages',
      label: `GET /v1/packages (${CATALOGUE_SIZE.items})`,
      options: { url: `${base}/v1/packages?page_size=200`, headers: { authorization } },
    },
    {
      key: 'listComponents',
      label: `GET /v1/components (${CATALOGUE_SIZE.items})`,
      options: { url: `${base}/v1/components?page_size=200`, headers: { authorization } },
    },
  ];
  const raw = new Map<RouteKey, Run>();
  for (const route of routes) {
    if (WARMUP_SECONDS > 0) {
      log(`${route.label}: warming up ${WARMUP_SECONDS} s`);
      await fire(route, { seconds: WARMUP_SECONDS, connections: CONNECTIONS, phase: 'warm-up' });
    }
    log(`${route.label}: measuring ${SECONDS} s`);
    raw.set(route.key, await fire(route, { seconds: SECONDS, connections: CONNECTIONS, phase: 'measured' }));
  }
  const floorRps = raw.get('floor')!.result.requests.mean;
  const figures = {} as Record<RouteKey, Figures>;
  for (const route of routes) {
    const { result, latencies } = raw.get(route.key)!;
    figures[route.key] = {
      route: route.label,
      requestsPerSecond: round(result.requests.mean, 1),
      requestsTotal: result.requests.total,
      latencyP50Ms: round(percentile(latencies, 50), 3),
      latencyP99Ms: round(percentile(latencies, 99), 3),
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      vsFloor: floorRps > 0 ? round(result.requests.mean / floorRps, 3) : 0,
    };
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<Record<RouteKey, Figures>> {
  const dataDir = path.join(tempDir, `data-${setup.dialect}`);
  await fs.mkdir(dataDir, { recursive: true });
  const port = await freePort();
  const env = serviceEnv(setup.databaseUrl, dataDir, port);
  const base = `http://${HOST}:${port}`;

  log(`${setup.dialect}: creating the account`);
  const credentials = await createAccount(env);
  log(`${setup.dialect}: starting the server on ${base}`);
  const server = startServer(env);
  active.server = server;
  try {
    await waitForHealth(base, server);
    const authorization = basicAuth(credentials);
    const customerId = await createCustomer(base, authorization);
    log(
      `${setup.dialect}: seeding ${CATALOGUE_SIZE.items} packages and components of ${CATALOGUE_SIZE.versions} versions in ${CATALOGUE_SIZE.currencies.length} currencies`,
    );
    await seedCatalogue(base, authorization);
    const figures = await measureRoutes(base, authorization, customerId);
    // autocannon drops its connections at the end of a run, with requests still in flight on the server; give them
    // a moment to finish so that shutdown measures nothing and logs nothing about them.
    await sleep(1_000);
    return figures;
  } catch (error) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      log(`the server had exited (code ${String(server.child.exitCode)}); its output:\n${server.output()}`);
    }
    throw error;
  } finally {
    await stopServer(server);
    active.server = undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printTable(dialect: Dialect, figures: Record<RouteKey, Figures>): void {
  const header = ['route', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'vs floor'];
  const rows = Object.values(figures).map((f) => [
    f.route,
    f.requestsPerSecond.toFixed(1),
    f.latencyP50Ms.toFixed(2),
    f.latencyP99Ms.toFixed(2),
    String(f.non2xx),
    `${(f.vsFloor * 100).toFixed(1)}%`,
  ]);
  const title = `${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${SECONDS} s per route after ${WARMUP_SECONDS} s warm-up, ${CONNECTIONS} connections`;
  console.log(formatTable(title, header, rows));
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'billing-bench-'));
  active.tempDir = tempDir;
  const results: Partial<Record<Dialect, Record<RouteKey, Figures>>> = {};
  try {
    const dialects: Array<() => Promise<DialectSetup>> = [() => sqliteSetup(tempDir)];
    const pgUrl = PG_URL;
    if (pgUrl) dialects.push(() => postgresSetup(pgUrl));
    else log('PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to include it');
    for (const prepare of dialects) {
      const setup = await prepare();
      try {
        results[setup.dialect] = await benchDialect(setup, tempDir);
      } finally {
        await setup.cleanup();
      }
      printTable(setup.dialect, results[setup.dialect]!);
    }
  } finally {
    await fs.rm(tempDir, { recursive: true, force: true });
    active.tempDir = undefined;
  }

  const getVsFloor = results.sqlite!.getCustomer.vsFloor;
  const targetMet = getVsFloor >= TARGET_GET_VS_FLOOR;
  console.log(
    `Target: authenticated GET at >= ${TARGET_GET_VS_FLOOR * 100}% of the floor on SQLite: ` +
      `${(getVsFloor * 100).toFixed(1)}% — ${targetMet ? 'met' : 'NOT MET'}`,
  );
  console.log(
    JSON.stringify({
      benchmark: 'billing-http',
      node: process.version,
      cpus: os.cpus().length,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      connections: CONNECTIONS,
      results,
      target: {
        metric: 'sqlite.getCustomer.vsFloor',
        min: TARGET_GET_VS_FLOOR,
        value: getVsFloor,
        met: targetMet,
      },
    }),
  );
  return !targetMet && STRICT ? 1 : 0;
}

// Stop by itself: a run longer than its planned length plus generous slack is aborted.
const dialectCount = PG_URL ? 2 : 1;
const budgetMs = dialectCount * (5 * (SECONDS + WARMUP_SECONDS) + 300) * 1000;
await runBenchmark(main, budgetMs);
