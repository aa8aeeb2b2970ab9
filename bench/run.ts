/**
 * HTTP benchmark of the billing service: a real server in a child process on 127.0.0.1, autocannon in this one.
 *
 *   npm run bench                      SQLite only (a fresh temporary file)
 *   BENCH_DATABASE_URL=postgres://... npm run bench   SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Settings (environment): BENCH_SECONDS (measured seconds per route, default 10), BENCH_WARMUP_SECONDS (default 2),
 * BENCH_CONNECTIONS (default 10), BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL), BENCH_STRICT=1 (exit 1 when
 * a target is missed), BENCH_ROUTES=catalogue or customer (the floor and the catalogue lists, or the customer read,
 * only). See bench/README.md.
 */
import { CATALOGUE_SIZE, seedCatalogue } from './catalogue.ts';
import {
  BenchError,
  PG_URL,
  dialectName,
  forEachDialect,
  formatTable,
  log,
  round,
  runBenchmark,
  sleep,
  loadAverage,
  printJsonLine,
} from './common.ts';
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

/** The authenticated GET must reach at least this share of the floor's requests per second. */
const TARGET_GET_VS_FLOOR: Record<Dialect, number> = { sqlite: 0.5, postgres: 0.5 };
/** A catalogue page must cost at most this many times the `JSON.stringify` of its own body. */
const TARGET_PAGE_VS_STRINGIFY = 3;

const ROUTE_SETS = ['all', 'catalogue', 'customer'] as const;
const ROUTE_SET = (process.env.BENCH_ROUTES || 'all') as (typeof ROUTE_SETS)[number];
if (!ROUTE_SETS.includes(ROUTE_SET)) {
  log(
    `BENCH_ROUTES must be one of ${ROUTE_SETS.join(', ')}; got ${JSON.stringify(process.env.BENCH_ROUTES)}`,
  );
  process.exit(2);
}

const STRICT = process.env.BENCH_STRICT === '1';

interface Target {
  what: string;
  metric: string;
  min?: number;
  max?: number;
  value: number;
  met: boolean;
}

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

/** A catalogue page's figures: the server's CPU per page against the `JSON.stringify` of the same body. */
export interface PageCost {
  route: string;
  bytes: number;
  stringifyUs: number;
  serverCpuUsPerPage: number;
  vsStringify: number;
}

const STRINGIFY_ROUNDS = 200;

/**
 * The floor of a page: its body fetched once (checked to hold the whole catalogue), parsed, then stringified in
 * this process, the median of STRINGIFY_ROUNDS timed rounds after a warm-up.
 */
async function stringifyFloor(url: string, authorization: string): Promise<{ bytes: number; us: number }> {
  const response = await fetch(url, { headers: { authorization }, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (response.status !== 200) throw new BenchError(`${url} answered ${response.status}: ${text}`);
  const body = JSON.parse(text) as unknown;
  if (!Array.isArray(body) || body.length !== CATALOGUE_SIZE.items)
    throw new BenchError(`${url} did not list ${CATALOGUE_SIZE.items} items`);
  if (JSON.stringify(body) !== text) throw new BenchError(`${url}: the body is not its own JSON.stringify`);
  for (let i = 0; i < 20; i++) JSON.stringify(body);
  const times: number[] = [];
  for (let i = 0; i < STRINGIFY_ROUNDS; i++) {
    const start = process.hrtime.bigint();
    JSON.stringify(body);
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  return { bytes: Buffer.byteLength(text), us: times[Math.floor(times.length / 2)]! };
}

async function measureRoutes(base: string, authorization: string, customerId: number, serverPid?: number) {
  const allRoutes: RouteSpec[] = [
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
  const catalogueKeys: RouteKey[] = ['listPackages', 'listComponents'];
  const chosen: Record<typeof ROUTE_SET, RouteKey[]> = {
    all: allRoutes.map((r) => r.key),
    catalogue: ['floor', ...catalogueKeys],
    customer: ['floor', 'getCustomer'],
  };
  const routes = allRoutes.filter((r) => chosen[ROUTE_SET].includes(r.key));
  const raw = new Map<RouteKey, Run>();
  const cpuUsPerRequest = new Map<RouteKey, number>();
  const pages: PageCost[] = [];
  for (const route of routes) {
    const isPage = catalogueKeys.includes(route.key);
    const measured = await warmUpAndMeasure(route, { serverPid });
    raw.set(route.key, measured.measured);
    const total = measured.measured.result.requests.total;
    const cpuUs = measured.cpuSeconds === undefined || total === 0 ? 0 : (measured.cpuSeconds * 1e6) / total;
    cpuUsPerRequest.set(route.key, cpuUs);
    if (isPage) {
      const floor = await stringifyFloor(route.options.url as string, authorization);
      pages.push({
        route: route.label,
        bytes: floor.bytes,
        stringifyUs: Math.round(floor.us),
        serverCpuUsPerPage: Math.round(cpuUs),
        vsStringify: Math.round((cpuUs / floor.us) * 100) / 100,
      });
    }
  }
  const floorRps = raw.get('floor')!.result.requests.mean;
  const floorCpuUs = cpuUsPerRequest.get('floor')!;
  const figures: Partial<Record<RouteKey, RouteFigures>> = {};
  for (const route of routes) {
    const cpuUs = cpuUsPerRequest.get(route.key)!;
    figures[route.key] = httpFigures(route.label, raw.get(route.key)!, floorRps, {
      serverCpuUsPerRequest: Math.round(cpuUs),
      cpuVsFloor: cpuUs > 0 ? round(floorCpuUs / cpuUs, 3) : 0,
    });
  }
  return { figures, pages };
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

/** With the server's CPU per request, steadier than req/s on a busy machine (PostgreSQL's own CPU not counted). */
type RouteFigures = HttpFigures & { serverCpuUsPerRequest: number; cpuVsFloor: number };

interface DialectFigures {
  figures: Partial<Record<RouteKey, RouteFigures>>;
  pages: PageCost[];
}

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<DialectFigures> {
  return withService(setup, tempDir, 'Bench', async ({ base, authorization, server }) => {
    const customerId = await createCustomer(base, authorization);
    if (ROUTE_SET !== 'customer') {
      log(
        `${setup.dialect}: seeding ${CATALOGUE_SIZE.items} packages and components of ${CATALOGUE_SIZE.versions} versions in ${CATALOGUE_SIZE.currencies.length} currencies`,
      );
      await seedCatalogue(base, authorization);
    }
    const figures = await measureRoutes(base, authorization, customerId, server.child.pid);
    // autocannon drops its connections at the end of a run, with requests still in flight on the server; give them
    // a moment to finish so that shutdown measures nothing and logs nothing about them.
    await sleep(1_000);
    return figures;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printTable(dialect: Dialect, { figures, pages }: DialectFigures): void {
  const header = [
    'route',
    'req/s',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'vs floor',
    'server CPU µs/req',
    'CPU vs floor',
  ];
  const rows = Object.values(figures).map((f) => [
    ...figureCells(f),
    `${(f.vsFloor * 100).toFixed(1)}%`,
    String(f.serverCpuUsPerRequest),
    `${(f.cpuVsFloor * 100).toFixed(1)}%`,
  ]);
  console.log(formatTable(tableTitle(dialect), header, rows));
  const pageHeader = ['page', 'bytes', 'stringify µs', 'server CPU µs/page', 'vs stringify'];
  const pageRows = pages.map((p) => [
    p.route,
    String(p.bytes),
    String(p.stringifyUs),
    String(p.serverCpuUsPerPage),
    `${p.vsStringify.toFixed(2)}×`,
  ]);
  console.log(formatTable(`${tableTitle(dialect)}: catalogue pages`, pageHeader, pageRows));
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

  const targets: Target[] = [];
  for (const [dialect, result] of Object.entries(results) as [Dialect, DialectFigures][]) {
    const get = result.figures.getCustomer;
    if (get) {
      targets.push({
        what: `authenticated GET at >= ${TARGET_GET_VS_FLOOR[dialect] * 100}% of the floor on ${dialectName(dialect)}`,
        metric: `${dialect}.getCustomer.vsFloor`,
        min: TARGET_GET_VS_FLOOR[dialect],
        value: get.vsFloor,
        met: get.vsFloor >= TARGET_GET_VS_FLOOR[dialect],
      });
    }
  }
  const pageRatios = Object.values(results).flatMap((r) => r.pages.map((p) => p.vsStringify));
  if (pageRatios.length > 0) {
    const worstPage = Math.max(...pageRatios);
    targets.push({
      what: `a catalogue page within ${TARGET_PAGE_VS_STRINGIFY}× the JSON.stringify of its body (the worst)`,
      metric: 'pages.vsStringify (worst)',
      max: TARGET_PAGE_VS_STRINGIFY,
      value: worstPage,
      met: worstPage <= TARGET_PAGE_VS_STRINGIFY,
    });
  }
  for (const target of targets)
    console.log(`Target: ${target.what}: ${target.value} — ${target.met ? 'met' : 'NOT MET'}`);
  const targetMet = targets.every((target) => target.met);
  printJsonLine('billing-http', {
    routes: ROUTE_SET,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    connections: CONNECTIONS,
    loadAverage: loadAverage(),
    results,
    targets,
  });
  return !targetMet && STRICT ? 1 : 0;
}

// Stop by itself: a run longer than its planned length plus generous slack is aborted.
const dialectCount = PG_URL ? 2 : 1;
const budgetMs = dialectCount * (5 * (SECONDS + WARMUP_SECONDS) + 300) * 1000;
await runBenchmark(main, budgetMs);
