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
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { CATALOGUE_SIZE, seedCatalogue } from './catalogue.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'bin', 'billing.js');
const HOST = '127.0.0.1';
/** The authenticated GET must reach at least this share of the floor's requests per second on SQLite. */
const TARGET_GET_VS_FLOOR = 0.5;

class BenchError extends Error {}

function setting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    process.stderr.write(`[bench] ${name} must be a number from ${min} to ${max}; got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}

const SECONDS = setting('BENCH_SECONDS', 10, 1, 600);
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 2, 0, 60);
const CONNECTIONS = Math.round(setting('BENCH_CONNECTIONS', 10, 1, 1000));
const STRICT = process.env.BENCH_STRICT === '1';
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;

type Dialect = 'sqlite' | 'postgres';
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

interface Credentials {
  accountID: number;
  apiKey: string;
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits: number) => Number(value.toFixed(digits));

// ---------------------------------------------------------------------------------------------------------------
// The server process

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new BenchError('could not find a free port'))));
    });
  });
}

function serviceEnv(databaseUrl: string, dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // A fixed key for the run, so the server does not warn about a key file (PostgreSQL) nor write one.
    ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
  };
  // No e-mail leaves the machine during a benchmark; the rest of the service settings keep their defaults.
  for (const name of ['SMTP_URL', 'WORKER_INTERVAL_MS', 'BODY_LIMIT_BYTES', 'MAIL_FROM']) delete env[name];
  return env;
}

async function createAccount(env: NodeJS.ProcessEnv): Promise<Credentials> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, 'account', 'create', '--name', 'Bench', '--json'],
      { cwd: ROOT, env, timeout: 60_000 },
    ));
  } catch (error) {
    const failure = error as Error & { stdout?: string; stderr?: string };
    throw new BenchError(
      `\`billing account create\` failed: ${failure.message}\n${failure.stdout ?? ''}${failure.stderr ?? ''}`,
    );
  }
  const line = stdout.trim().split('\n').at(-1) ?? '';
  let parsed: Partial<Credentials>;
  try {
    parsed = JSON.parse(line) as Partial<Credentials>;
  } catch {
    throw new BenchError(`\`billing account create --json\` printed no JSON: ${JSON.stringify(stdout)}`);
  }
  if (typeof parsed.accountID !== 'number' || typeof parsed.apiKey !== 'string') {
    throw new BenchError(`\`billing account create --json\` printed an unexpected object: ${line}`);
  }
  return { accountID: parsed.accountID, apiKey: parsed.apiKey };
}

interface ServerProcess {
  child: ChildProcess;
  /** Settles when the process has exited. */
  exited: Promise<void>;
  output(): string;
}

function startServer(env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-20_000);
    for (const line of text.split('\n')) if (line.trim() !== '') process.stderr.write(`[server] ${line}\n`);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  child.once('error', (error) => log(`server process error: ${error.message}`));
  return { child, exited, output: () => output };
}

async function stopServer(server: ServerProcess): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const stopped = await Promise.race([server.exited.then(() => true), sleep(15_000).then(() => false)]);
  if (!stopped) {
    log('the server did not exit within 15 s of SIGTERM; sending SIGKILL');
    child.kill('SIGKILL');
    await Promise.race([server.exited, sleep(5_000)]);
  } else if (child.exitCode !== 0) {
    log(`the server exited with code ${String(child.exitCode)} after SIGTERM`);
  }
}

async function waitForHealth(base: string, server: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = '';
  while (performance.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new BenchError(
        `the server exited (code ${String(server.child.exitCode)}, signal ${String(server.child.signalCode)}) ` +
          `before answering /healthz. Its output:\n${server.output()}`,
      );
    }
    try {
      const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  throw new BenchError(`/healthz did not answer 200 within ${timeoutMs / 1000} s (last: ${last})`);
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

const CUSTOMER_BODY = JSON.stringify({ Name: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' });

function basicAuth({ accountID, apiKey }: Credentials): string {
  return `Basic ${Buffer.from(`${accountID}:${apiKey}`).toString('base64')}`;
}

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

interface RouteSpec {
  key: RouteKey;
  label: string;
  options: Omit<autocannon.Options, 'duration' | 'connections'>;
}

function describeStatuses(result: autocannon.Result): string {
  const codes = Object.entries(result.statusCodeStats ?? {})
    .map(([code, stats]) => `${code}: ${stats.count ?? 0}`)
    .join(', ');
  return codes || 'none';
}

interface Run {
  result: autocannon.Result;
  /** Every 2xx response time in ms, sorted; autocannon's own histogram keeps whole milliseconds only. */
  latencies: Float64Array;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function fire(spec: RouteSpec, seconds: number, phase: string): Promise<Run> {
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { ...spec.options, connections: CONNECTIONS, duration: seconds, timeout: 10 },
      (error: unknown, outcome: autocannon.Result) => (error ? reject(error as Error) : resolve(outcome)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
    });
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || result['2xx'] === 0) {
    throw new BenchError(
      `${spec.label} (${phase}): ${result.non2xx} non-2xx responses, ${result.errors} connection errors, ` +
        `${result.timeouts} timeouts, ${result['2xx']} 2xx responses; status codes: ${describeStatuses(result)}`,
    );
  }
  return { result, latencies: Float64Array.from(times).sort() };
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
      await fire(route, WARMUP_SECONDS, 'warm-up');
    }
    log(`${route.label}: measuring ${SECONDS} s`);
    raw.set(route.key, await fire(route, SECONDS, 'measured'));
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

interface DialectSetup {
  dialect: Dialect;
  databaseUrl: string;
  cleanup(): Promise<void>;
}

async function sqliteSetup(tempDir: string): Promise<DialectSetup> {
  return {
    dialect: 'sqlite',
    databaseUrl: `sqlite:${path.join(tempDir, 'bench.sqlite')}`,
    cleanup: async () => {},
  };
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

async function postgresSetup(baseUrl: string): Promise<DialectSetup> {
  const schema = `bench_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    activeSchema = schema;
  } catch (error) {
    await admin.end().catch(() => {});
    throw new BenchError(
      `could not create schema ${schema} on ${redact(baseUrl)}: ${(error as Error).message}`,
    );
  }
  const url = new URL(baseUrl);
  const existing = url.searchParams.get('options');
  url.searchParams.set('options', `${existing ? `${existing} ` : ''}-c search_path=${schema}`);
  log(`PostgreSQL: schema ${schema} on ${redact(baseUrl)}`);
  return {
    dialect: 'postgres',
    databaseUrl: url.toString(),
    cleanup: async () => {
      try {
        await admin.query(`drop schema if exists "${schema}" cascade`);
        activeSchema = undefined;
        log(`PostgreSQL: schema ${schema} dropped`);
      } catch (error) {
        log(`PostgreSQL: could not drop schema ${schema}: ${(error as Error).message}`);
      } finally {
        await admin.end().catch(() => {});
      }
    },
  };
}

let activeServer: ServerProcess | undefined;
let activeTempDir: string | undefined;
let activeSchema: string | undefined;

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
  activeServer = server;
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
    activeServer = undefined;
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
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const title = `${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${SECONDS} s per route after ${WARMUP_SECONDS} s warm-up, ${CONNECTIONS} connections`;
  console.log(
    ['', title, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), ''].join('\n'),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'billing-bench-'));
  activeTempDir = tempDir;
  const results: Partial<Record<Dialect, Record<RouteKey, Figures>>> = {};
  try {
    const dialects: Array<() => Promise<DialectSetup>> = [() => sqliteSetup(tempDir)];
    if (PG_URL) dialects.push(() => postgresSetup(PG_URL));
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
    activeTempDir = undefined;
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
/** Last-resort cleanup when the run is cut short: the server, the temporary files; the schema is only named. */
function abandon(): void {
  activeServer?.child.kill('SIGKILL');
  if (activeTempDir) rmSync(activeTempDir, { recursive: true, force: true });
  if (activeSchema)
    log(`PostgreSQL schema ${activeSchema} is left behind: drop schema "${activeSchema}" cascade`);
}

const watchdog = setTimeout(() => {
  log(`aborting: the run exceeded its ${Math.round(budgetMs / 1000)} s budget`);
  abandon();
  process.exit(1);
}, budgetMs);
watchdog.unref();

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    abandon();
    process.exit(130);
  });
}

try {
  process.exitCode = await main();
} catch (error) {
  if (error instanceof BenchError) log(`FAILED: ${error.message}`);
  else log(`FAILED: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
}
