/**
 * What the HTTP benchmarks share (bench/run.ts, bench/payments.ts): their settings from the environment, the real
 * server in a child process on 127.0.0.1 over a fresh database per dialect (a temporary SQLite file, or a PostgreSQL
 * schema dropped afterwards), and autocannon runs, warmed up then measured, with every 2xx response's own timing.
 * The rest (the per-dialect driver, the watchdog and clean-up of a run cut short) is bench/common.ts.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import {
  BenchError,
  active,
  cpuProfileFlags,
  createSchemas,
  log,
  round,
  setting,
  settlesWithin,
  sleep,
} from './common.ts';
import type { Dialect } from './common.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = path.join(ROOT, 'bin', 'billing.js');
export const HOST = '127.0.0.1';

/** Measured seconds per load, warm-up seconds before each (0: none), and autocannon's connections. */
export const SECONDS = setting('BENCH_SECONDS', 10, 1, 600);
export const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 2, 0, 60);
export const CONNECTIONS = Math.round(setting('BENCH_CONNECTIONS', 10, 1, 1000));

export interface Credentials {
  accountID: number;
  apiKey: string;
}

// ---------------------------------------------------------------------------------------------------------------
// The server process

export async function freePort(): Promise<number> {
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

export function serviceEnv(databaseUrl: string, dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // One process: the figures are one process's, its CPU read from its pid (bench/scaling.ts sets more).
    WORKERS: '1',
    // A fixed key for the run, so the server does not warn about a key file (PostgreSQL) nor write one.
    ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    // The benchmarks' live accounts collect through the built-in test gateway (docs/gateways.md, "Live means live").
    TEST_GATEWAY_ON_LIVE_ACCOUNTS: 'true',
  };
  // No e-mail leaves the machine during a benchmark; the rest of the service settings keep their defaults.
  for (const name of ['SMTP_URL', 'WORKER_INTERVAL_MS', 'BODY_LIMIT_BYTES', 'MAIL_FROM']) delete env[name];
  return env;
}

/** `billing account create --json` (which migrates the empty database first): the account and its API key. */
export async function createAccount(env: NodeJS.ProcessEnv, name = 'Bench'): Promise<Credentials> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, 'account', 'create', '--name', name, '--json'],
      {
        cwd: ROOT,
        env,
        timeout: 60_000,
      },
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

export interface ServerProcess {
  child: ChildProcess;
  /** Settles when the process has exited. */
  exited: Promise<void>;
  output(): string;
}

/** BENCH_SERVER_NODE_FLAGS: more `node` flags for the server (diagnostics, e.g. `--cpu-prof --cpu-prof-dir=DIR`). */
const SERVER_NODE_FLAGS = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);

export function startServer(env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(process.execPath, [...cpuProfileFlags(), ...SERVER_NODE_FLAGS, CLI, 'serve'], {
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

export async function stopServer(server: ServerProcess): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const stopped = await settlesWithin(server.exited, 15_000);
  if (!stopped) {
    log('the server did not exit within 15 s of SIGTERM; sending SIGKILL');
    child.kill('SIGKILL');
    await settlesWithin(server.exited, 5_000);
  } else if (child.exitCode !== 0) {
    log(`the server exited with code ${String(child.exitCode)} after SIGTERM`);
  }
}

export async function waitForHealth(base: string, server: ServerProcess, timeoutMs = 60_000): Promise<void> {
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

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (Linux; undefined elsewhere). Steadier
 * than throughput on a busy machine: per request, it is what the server spent, whoever else wanted the cores.
 */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3: utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    // USER_HZ, the unit of these fields, is 100 on Linux.
    return Number.isFinite(ticks) ? ticks / 100 : undefined;
  } catch {
    return undefined;
  }
}

export function basicAuth({ accountID, apiKey }: Credentials): string {
  return `Basic ${Buffer.from(`${accountID}:${apiKey}`).toString('base64')}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

export interface LoadSpec {
  label: string;
  options: Omit<autocannon.Options, 'duration' | 'connections'>;
  /**
   * Requests per second, sent at even intervals whatever the answers (see firePaced); unset: as fast as the
   * connections go, by autocannon.
   */
  perSecond?: number;
}

export function describeStatuses(result: RunResult): string {
  const codes = Object.entries(result.statusCodeStats ?? {})
    .map(([code, stats]) => `${code}: ${stats.count ?? 0}`)
    .join(', ');
  return codes || 'none';
}

/** What is read of a run: autocannon's result, or the same figures of a paced run. */
export type RunResult = Pick<
  autocannon.Result,
  'non2xx' | 'errors' | 'timeouts' | '2xx' | 'statusCodeStats'
> & {
  requests: { mean: number; total: number };
};

export interface Run {
  result: RunResult;
  /** Every 2xx response time in ms, sorted; autocannon's own histogram keeps whole milliseconds only. */
  latencies: Float64Array;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Whether a run had anything but 2xx responses (or none at all). */
export function hasFailures(result: RunResult): boolean {
  return result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || result['2xx'] === 0;
}

export function describeFailures(label: string, phase: string, result: RunResult): string {
  return (
    `${label} (${phase}): ${result.non2xx} non-2xx responses, ${result.errors} connection errors, ` +
    `${result.timeouts} timeouts, ${result['2xx']} 2xx responses; status codes: ${describeStatuses(result)}`
  );
}

/**
 * One autocannon run of `seconds` with `connections` keep-alive connections. Any non-2xx response, connection error
 * or timeout fails it, unless `tolerateFailures` (the caller then reports them from the result).
 */
export async function fire(
  spec: LoadSpec,
  settings: { seconds: number; connections: number; phase: string; tolerateFailures?: boolean },
): Promise<Run> {
  if (spec.perSecond !== undefined) return firePaced(spec, spec.perSecond, settings);
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { ...spec.options, connections: settings.connections, duration: settings.seconds, timeout: 10 },
      (error: unknown, outcome: autocannon.Result) => (error ? reject(error as Error) : resolve(outcome)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
    });
  });
  if (!settings.tolerateFailures && hasFailures(result)) {
    throw new BenchError(describeFailures(spec.label, settings.phase, result));
  }
  return { result, latencies: Float64Array.from(times).sort() };
}

/**
 * An open-loop run: request n is sent at n / perSecond seconds, whether or not earlier ones were answered (so a slow
 * answer delays none of the requests after it, as it would with autocannon's connections, and cannot hide in the
 * figures). The spec's `setupRequest` and `onResponse` are called as autocannon calls them. Its response times are
 * from sending to the end of the answer.
 */
async function firePaced(
  spec: LoadSpec,
  perSecond: number,
  settings: { seconds: number; phase: string; tolerateFailures?: boolean },
): Promise<Run> {
  const { url, method = 'GET', headers = {}, body = undefined, requests = [] } = spec.options;
  // Only functions: autocannon's module paths for these are not used by our benchmarks.
  const setup = typeof requests[0]?.setupRequest === 'function' ? requests[0].setupRequest : undefined;
  const onResponse = typeof requests[0]?.onResponse === 'function' ? requests[0].onResponse : undefined;
  const agent = new http.Agent({ keepAlive: true });
  const times: number[] = [];
  const statusCodeStats: Record<string, { count: number }> = {};
  let errors = 0;
  let timeouts = 0;
  const send = (): Promise<void> => {
    const context = {};
    const request = setup?.({ method, headers, body }, context) ?? { method, headers, body };
    const payload = typeof request.body === 'string' ? request.body : undefined;
    const sentAt = performance.now();
    return new Promise<void>((resolve) => {
      let answered = false;
      let timedOut = false;
      const outgoing = http.request(url, {
        method: request.method,
        headers: request.headers,
        agent,
        timeout: 10_000,
      });
      outgoing.on('timeout', () => {
        timedOut = true;
        outgoing.destroy();
      });
      // Counted once the request closes: a timeout as a timeout, not also as the error its destroy raises.
      outgoing.on('error', () => {});
      outgoing.on('close', () => {
        if (!answered) {
          if (timedOut) timeouts += 1;
          else errors += 1;
        }
        resolve();
      });
      outgoing.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          answered = true;
          const status = response.statusCode ?? 0;
          statusCodeStats[status] = { count: (statusCodeStats[status]?.count ?? 0) + 1 };
          if (status >= 200 && status < 300) times.push(performance.now() - sentAt);
          onResponse?.(status, Buffer.concat(chunks).toString('utf8'), context, response.headers);
          resolve();
        });
      });
      outgoing.end(payload);
    });
  };
  const total = Math.round(perSecond * settings.seconds);
  const started = performance.now();
  const sent: Promise<void>[] = [];
  for (let n = 0; n < total; n += 1) {
    const wait = started + (n * 1000) / perSecond - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(send());
  }
  await Promise.all(sent);
  agent.destroy();
  const answered = Object.values(statusCodeStats).reduce((sum, { count }) => sum + count, 0);
  const ok = times.length;
  const result: RunResult = {
    requests: { mean: answered / ((performance.now() - started) / 1000), total: answered },
    '2xx': ok,
    non2xx: answered - ok,
    errors,
    timeouts,
    statusCodeStats: statusCodeStats as autocannon.Result['statusCodeStats'],
  };
  if (!settings.tolerateFailures && hasFailures(result)) {
    throw new BenchError(describeFailures(spec.label, settings.phase, result));
  }
  return { result, latencies: Float64Array.from(times).sort() };
}

export interface Measured {
  /** The warm-up run (none when WARMUP_SECONDS is 0). */
  warmup?: Run;
  measured: Run;
  /** The server process's CPU seconds over the measured run, when its pid was given (Linux). */
  cpuSeconds?: number;
}

/**
 * A load warmed up for WARMUP_SECONDS (unless 0), then measured for SECONDS, with CONNECTIONS connections; `onPhase`
 * is told which phase starts. Any non-2xx response, connection error or timeout fails it, unless `tolerateFailures`:
 * then they are logged, and the caller reports them from the runs.
 */
export async function warmUpAndMeasure(
  spec: LoadSpec,
  options: {
    tolerateFailures?: boolean;
    serverPid?: number;
    onPhase?: (phase: 'warm-up' | 'measured') => void;
  } = {},
): Promise<Measured> {
  const tolerateFailures = options.tolerateFailures ?? false;
  let warmup: Run | undefined;
  if (WARMUP_SECONDS > 0) {
    log(`${spec.label}: warming up ${WARMUP_SECONDS} s`);
    options.onPhase?.('warm-up');
    warmup = await fire(spec, {
      seconds: WARMUP_SECONDS,
      connections: CONNECTIONS,
      phase: 'warm-up',
      tolerateFailures,
    });
    if (tolerateFailures && hasFailures(warmup.result))
      log(describeFailures(spec.label, 'warm-up', warmup.result));
  }
  log(`${spec.label}: measuring ${SECONDS} s`);
  options.onPhase?.('measured');
  const cpuBefore = options.serverPid === undefined ? undefined : processCpuSeconds(options.serverPid);
  const measured = await fire(spec, {
    seconds: SECONDS,
    connections: CONNECTIONS,
    phase: 'measured',
    tolerateFailures,
  });
  if (tolerateFailures) {
    if (hasFailures(measured.result)) log(describeFailures(spec.label, 'measured', measured.result));
    else log(`${spec.label}: ${describeStatuses(measured.result)}`);
  }
  const cpuAfter = options.serverPid === undefined ? undefined : processCpuSeconds(options.serverPid);
  const cpuSeconds = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
  return { warmup, measured, cpuSeconds };
}

/** The figures of a measured load, every HTTP benchmark's. */
export interface HttpFigures {
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

/** A measured run's figures against the floor's requests per second; `extra` ones come before `vsFloor`. */
export function httpFigures<E extends object>(
  route: string,
  { result, latencies }: Run,
  floorRps: number,
  extra: E,
): HttpFigures & E {
  return {
    route,
    requestsPerSecond: round(result.requests.mean, 1),
    requestsTotal: result.requests.total,
    latencyP50Ms: round(percentile(latencies, 50), 3),
    latencyP99Ms: round(percentile(latencies, 99), 3),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    ...extra,
    vsFloor: floorRps > 0 ? round(result.requests.mean / floorRps, 3) : 0,
  };
}

/** The first cells of a figures table's row: route, req/s, p50 ms, p99 ms, non-2xx. */
export function figureCells(f: HttpFigures): string[] {
  return [
    f.route,
    f.requestsPerSecond.toFixed(1),
    f.latencyP50Ms.toFixed(2),
    f.latencyP99Ms.toFixed(2),
    String(f.non2xx),
  ];
}

/** "SQLite: 10 s per route after 2 s warm-up, 10 connections": the start of a figures table's title. */
export function tableTitle(dialect: Dialect): string {
  const name = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return `${name}: ${SECONDS} s per route after ${WARMUP_SECONDS} s warm-up, ${CONNECTIONS} connections`;
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect: a fresh database, the account, and the server on it

export interface DialectSetup {
  dialect: Dialect;
  databaseUrl: string;
  cleanup(): Promise<void>;
}

export async function sqliteSetup(tempDir: string): Promise<DialectSetup> {
  return {
    dialect: 'sqlite',
    databaseUrl: `sqlite:${path.join(tempDir, 'bench.sqlite')}`,
    cleanup: async () => {},
  };
}

/** A fresh schema `bench_<random>`, reached with `options=-c search_path=…`, dropped by `cleanup`. */
export async function postgresSetup(baseUrl: string): Promise<DialectSetup> {
  const schema = `bench_${crypto.randomBytes(6).toString('hex')}`;
  const { urls, drop } = await createSchemas(baseUrl, [schema]);
  return { dialect: 'postgres', databaseUrl: urls[0]!, cleanup: drop };
}

export interface Service {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** The server's DATA_DIR. */
  dataDir: string;
  credentials: Credentials;
  /** The credentials as an HTTP Basic `authorization` header. */
  authorization: string;
  server: ServerProcess;
}

/**
 * The service on `setup`'s database, for `work`: the account made by `billing account create` (named
 * `accountName`), the server started and answering /healthz; stopped afterwards, also when `work` fails (with the
 * server's output when it had died).
 */
export async function withService<R>(
  setup: DialectSetup,
  tempDir: string,
  accountName: string,
  work: (service: Service) => Promise<R>,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<R> {
  const dataDir = path.join(tempDir, `data-${setup.dialect}`);
  await fs.mkdir(dataDir, { recursive: true });
  const port = await freePort();
  const env = { ...serviceEnv(setup.databaseUrl, dataDir, port), ...extraEnv };
  const base = `http://${HOST}:${port}`;

  log(`${setup.dialect}: creating the account`);
  const credentials = await createAccount(env, accountName);
  log(`${setup.dialect}: starting the server on ${base}`);
  const server = startServer(env);
  active.child = server.child;
  try {
    await waitForHealth(base, server);
    return await work({ base, dataDir, credentials, authorization: basicAuth(credentials), server });
  } catch (error) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      log(`the server had exited (code ${String(server.child.exitCode)}); its output:\n${server.output()}`);
    }
    throw error;
  } finally {
    await stopServer(server);
    active.child = undefined;
  }
}
