// `npm run bench:all`: every benchmark, one after the other, on SQLite and PostgreSQL, then the generated part of
// docs/benchmarks.md written again from what they printed, and their JSON lines to docs/benchmarks.json beside it
// (bench/allReport.ts). How to run and read it: bench/README.md, "All at once".
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import * as prettier from 'prettier';
import { PG_URL, log, round } from './common.ts';
import { ROOT } from './harness.ts';
import type { BenchmarkRun, Machine } from './allReport.ts';
import { figuresFileName, figuresOf, renderRun, replaceGenerated } from './allReport.ts';

interface Benchmark {
  script: string;
  measures: string;
  /** Settings for BENCH_ALL_QUICK=1: enough to see every benchmark run and check itself, quickly. */
  quick: Record<string, string>;
}

/** In the order of bench/README.md; each runs on SQLite, then on PostgreSQL. */
const BENCHMARKS: readonly Benchmark[] = [
  {
    script: 'bench',
    measures:
      'HTTP reads and writes (a customer, the catalogue pages) against `GET /healthz` on the same server.',
    quick: { BENCH_SECONDS: '2', BENCH_WARMUP_SECONDS: '1' },
  },
  {
    script: 'bench:billing',
    measures: 'One bill run over subscriptions due the same day against the same rows written bare.',
    quick: { BENCH_SUBSCRIPTIONS: '2000' },
  },
  {
    script: 'bench:payments',
    measures: '`POST /v1/payments` with `AutoApply`, spread and on one customer, against `GET /healthz`.',
    quick: { BENCH_SECONDS: '2', BENCH_WARMUP_SECONDS: '1', BENCH_CUSTOMERS: '100' },
  },
  {
    script: 'bench:fairness',
    measures:
      "Another tenant's reads while one tenant floods one customer with payments, against the same reads quiet.",
    quick: { BENCH_SECONDS: '2', BENCH_WARMUP_SECONDS: '1', BENCH_CUSTOMERS: '50' },
  },
  {
    script: 'bench:nofreeze',
    measures:
      "Another account's GET while a bill run, a test-clock advance, a batch build, four PDFs and a customer's PDF loop run (and its small PDF during the loop), against the same quiet.",
    quick: {
      BENCH_SUBSCRIPTIONS: '1000',
      BENCH_BATCH_LINES: '50',
      BENCH_QUIET_SECONDS: '1',
      BENCH_PDF_FLOOD_SECONDS: '2',
    },
  },
  {
    script: 'bench:webhooks',
    measures: 'Webhook deliveries to a local receiver against plain POSTs of the same bodies.',
    quick: { BENCH_WEBHOOK_EVENTS: '200', BENCH_SECONDS: '2' },
  },
  {
    script: 'bench:collections',
    measures: 'Collection of due card invoices through the test gateway against the gateway charges alone.',
    quick: { BENCH_INVOICES: '300' },
  },
  {
    script: 'bench:reminders',
    measures: "One day's reminder pass over past-due EFT invoices against the same e-mails queued bare.",
    quick: { BENCH_INVOICES: '300' },
  },
  {
    script: 'bench:batches',
    measures:
      'Building and exporting a SEPA batch, and adding its lines, against the reads the file needs and the file made bare.',
    quick: { BENCH_LINES: '100', BENCH_REPEATS: '1', BENCH_WARM_REPEATS: '2' },
  },
  {
    script: 'bench:revocation',
    measures: 'How long a revoked API key still works on a server that keeps its key lookups.',
    quick: { BENCH_ROUNDS: '5' },
  },
  {
    script: 'bench:usage',
    measures:
      "Usage events through `POST /v1/usage-events/batch` against the same rows inserted bare; another account's reads while one floods past its budget; a period aggregate.",
    quick: {
      BENCH_SECONDS: '2',
      BENCH_WARMUP_SECONDS: '1',
      BENCH_USAGE_CUSTOMERS: '20',
      BENCH_USAGE_PERIOD_EVENTS: '10000',
      BENCH_USAGE_AGGREGATE_RUNS: '10',
    },
  },
  {
    script: 'bench:scaling',
    measures:
      'A customer read, payments and a bill run with 1 and with 2 processes, against `GET /healthz` with as many.',
    quick: {
      BENCH_SECONDS: '2',
      BENCH_WARMUP_SECONDS: '1',
      BENCH_CUSTOMERS: '50',
      BENCH_BILLRUN_SUBSCRIPTIONS: '500',
    },
  },
  {
    script: 'bench:startup',
    measures: '`billing --help`, `billing serve` to its first answer, and its idle memory (SQLite).',
    quick: { STARTUP_RUNS: '2', STARTUP_IDLE_MS: '500' },
  },
];

const QUICK = process.env.BENCH_ALL_QUICK === '1';
const OUT = path.resolve(process.env.BENCH_ALL_OUT ?? path.join(ROOT, 'docs', 'benchmarks.md'));
const STDERR_TAIL_LINES = 30;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

function commitDescription(): string {
  const commit = git('rev-parse', '--short', 'HEAD');
  return git('status', '--porcelain', '--untracked-files=no') ? `${commit} with uncommitted changes` : commit;
}

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    return `${rows[0]!.server_version}, on the same machine`;
  } finally {
    await client.end();
  }
}

async function machineNow(postgresUrl: string): Promise<Machine> {
  const cpus = os.cpus();
  return {
    startedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: commitDescription(),
    node: process.version,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpus: cpus.length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    postgres: await postgresVersion(postgresUrl),
    loadBefore: round(os.loadavg()[0]!, 2),
    loadAfter: 0,
    quick: QUICK,
  };
}

/** The BENCH_ and STARTUP_ settings in the environment, but for bench:all's own and the databases' URLs. */
function callerSettings(): Record<string, string> {
  const own = new Set(['BENCH_ALL_QUICK', 'BENCH_ALL_OUT', 'BENCH_DATABASE_URL']);
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        /^(BENCH|STARTUP)_/.test(entry[0]) && !own.has(entry[0]) && entry[1] !== undefined,
    ),
  );
}

/** Runs one benchmark's npm script: its stdout kept, its stderr shown as it comes and its last lines kept. */
function runBenchmark(benchmark: Benchmark, postgresUrl: string): Promise<BenchmarkRun> {
  // What the caller set (BENCH_SUBSCRIPTIONS=20000 npm run bench:all) applies to every benchmark that reads it, and
  // is shown with each; the quick settings come on top.
  const settings = { ...callerSettings(), ...(QUICK ? benchmark.quick : {}) };
  const started = process.hrtime.bigint();
  log(`${benchmark.script}${QUICK ? ' (quick)' : ''}`);
  const child = spawn('npm', ['run', '--silent', benchmark.script], {
    cwd: ROOT,
    env: { ...process.env, ...settings, TEST_DATABASE_URL: postgresUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderrTail: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    process.stderr.write(chunk);
    stderrTail = [...stderrTail, ...chunk.split('\n')].slice(-STDERR_TAIL_LINES);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({
        script: benchmark.script,
        measures: benchmark.measures,
        settings,
        exitCode: code ?? (signal ? 128 : 1),
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        stdout,
        stderrTail: stderrTail.join('\n'),
      });
    });
  });
}

async function main(): Promise<number> {
  if (!PG_URL) {
    log('bench:all runs every benchmark on both databases: set TEST_DATABASE_URL (or BENCH_DATABASE_URL)');
    return 2;
  }
  const doc = fs.readFileSync(OUT, 'utf8');
  const machine = await machineNow(PG_URL);
  const runs: BenchmarkRun[] = [];
  for (const benchmark of BENCHMARKS) runs.push(await runBenchmark(benchmark, PG_URL));
  machine.loadAfter = round(os.loadavg()[0]!, 2);

  // Formatted as every page is (prettier), so that the next hand edit of the page does not reflow the run.
  const figuresFile = figuresFileName(OUT);
  const page = replaceGenerated(doc, renderRun(machine, runs, figuresFile));
  const options = await prettier.resolveConfig(OUT);
  fs.writeFileSync(OUT, await prettier.format(page, { ...options, filepath: OUT }));
  const figuresPath = path.join(path.dirname(OUT), figuresFile);
  const figures = JSON.stringify(figuresOf(machine, runs));
  fs.writeFileSync(figuresPath, await prettier.format(figures, { ...options, filepath: figuresPath }));
  const failed = runs.filter((run) => run.exitCode !== 0).map((run) => run.script);
  log(
    `${path.relative(process.cwd(), OUT)} and ${figuresFile} written; ${failed.length ? `FAILED: ${failed.join(', ')}` : 'every benchmark passed its checks'}`,
  );
  return failed.length ? 1 : 0;
}

process.exitCode = await main();
