/**
 * What the HTTP benchmarks share (bench/run.ts, bench/payments.ts): settings from the environment, the real server
 * in a child process on 127.0.0.1, a fresh database per dialect (a temporary SQLite file, or a PostgreSQL schema
 * dropped afterwards), autocannon runs with every 2xx response's own timing, and the clean-up when a run is cut
 * short (watchdog, Ctrl-C).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = path.join(ROOT, 'bin', 'billing.js');
export const HOST = '127.0.0.1';

/** A failure the benchmark explains itself: printed without a stack, exit status 1. */
export class BenchError extends Error {}

/** A numeric setting from the environment; out of range stops the run at once with status 2. */
export function setting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    process.stderr.write(`[bench] ${name} must be a number from ${min} to ${max}; got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}

/** The PostgreSQL URL to measure, when one is set. */
export const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;

export type Dialect = 'sqlite' | 'postgres';

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const round = (value: number, digits: number) => Number(value.toFixed(digits));

export interface Credentials {
  accountID: number;
  apiKey: string;
}

// ---------------------------------------------------------------------------------------------------------------
// What a cut-short run must clean up

/** The resources of the run in progress, for `abandon` (watchdog, signals). */
export const active: { server?: ServerProcess; tempDir?: string; schema?: string } = {};

/** Last-resort cleanup when the run is cut short: the server, the temporary files; the schema is only named. */
export function abandon(): void {
  active.server?.child.kill('SIGKILL');
  if (active.tempDir) rmSync(active.tempDir, { recursive: true, force: true });
  if (active.schema)
    log(`PostgreSQL schema ${active.schema} is left behind: drop schema "${active.schema}" cascade`);
}

/**
 * Runs a benchmark's main function under a watchdog (aborted past `budgetMs`) and Ctrl-C handling, and sets the
 * exit status: main's result, 1 on a failure (a BenchError is printed without its stack).
 */
export async function runBenchmark(main: () => Promise<number>, budgetMs: number): Promise<void> {
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
    // A fixed key for the run, so the server does not warn about a key file (PostgreSQL) nor write one.
    ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
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
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, CLI, 'serve'], {
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
  const stopped = await Promise.race([server.exited.then(() => true), sleep(15_000).then(() => false)]);
  if (!stopped) {
    log('the server did not exit within 15 s of SIGTERM; sending SIGKILL');
    child.kill('SIGKILL');
    await Promise.race([server.exited, sleep(5_000)]);
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
}

export function describeStatuses(result: autocannon.Result): string {
  const codes = Object.entries(result.statusCodeStats ?? {})
    .map(([code, stats]) => `${code}: ${stats.count ?? 0}`)
    .join(', ');
  return codes || 'none';
}

export interface Run {
  result: autocannon.Result;
  /** Every 2xx response time in ms, sorted; autocannon's own histogram keeps whole milliseconds only. */
  latencies: Float64Array;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Whether a run had anything but 2xx responses (or none at all). */
export function hasFailures(result: autocannon.Result): boolean {
  return result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || result['2xx'] === 0;
}

export function describeFailures(label: string, phase: string, result: autocannon.Result): string {
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

/** A text table: the first column left-aligned, the others right-aligned. */
export function formatTable(title: string, header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return ['', title, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), ''].join(
    '\n',
  );
}

// ---------------------------------------------------------------------------------------------------------------
// A fresh database per dialect

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

export function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** A fresh schema `bench_<random>`, reached with `options=-c search_path=…`, dropped by `cleanup`. */
export async function postgresSetup(baseUrl: string): Promise<DialectSetup> {
  const schema = `bench_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    active.schema = schema;
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
        active.schema = undefined;
        log(`PostgreSQL: schema ${schema} dropped`);
      } catch (error) {
        log(`PostgreSQL: could not drop schema ${schema}: ${(error as Error).message}`);
      } finally {
        await admin.end().catch(() => {});
      }
    },
  };
}
