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
import os from 'node:os';
import { CATALOGUE_SIZE, seedCatalogue } from './catalogue.ts';
import { BenchError, PG_URL, forEachDialect, formatTable, log, runBenchmark, sleep } from './common.ts';
import type { Dialect } from './common.ts';
import {
  CONNECTIONS,
  SECONDS,
  WARMUP_SECONDS,
  figureCells,
  httpFigures,
  postgresSetup,
  sqliteSetup,
  tableTitle,
  warmUpAndMeasure,
  withService,
} from './harness.ts';
import type { DialectSetup, HttpFigures, LoadSpec, Run } from './harness.ts';

/** The authenticated GET must reach at least this share of the floor's requests per second on SQLite. */
const TARGET_GET_VS_FLOOR = 0.5;

const STRICT = process.env.BENCH_STRICT === '1';

type RouteKey = 'floor' | 'getCustomer' | 'createCustomer' | 'listPackages' | 'listComponents';

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
  for (const route of routes) raw.set(route.key, (await warmUpAndMeasure(route)).measured);
  const floorRps = raw.get('floor')!.result.requests.mean;
  const figures = {} as Record<RouteKey, HttpFigures>;
  for (const route of routes)
    figures[route.key] = httpFigures(route.label, raw.get(route.key)!, floorRps, {});
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<Record<RouteKey, HttpFigures>> {
  return withService(setup, tempDir, 'Bench', async ({ base, authorization }) => {
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
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printTable(dialect: Dialect, figures: Record<RouteKey, HttpFigures>): void {
  const header = ['route', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'vs floor'];
  const rows = Object.values(figures).map((f) => [...figureCells(f), `${(f.vsFloor * 100).toFixed(1)}%`]);
  console.log(formatTable(tableTitle(dialect), header, rows));
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-',
    sqlite: sqliteSetup,
    postgres: postgresSetup,
    bench: benchDialect,
    print: printTable,
  });

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
