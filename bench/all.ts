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
import { BENCHMARKS } from './benchmarks.ts';
import type { Benchmark } from './benchmarks.ts';
import { figuresFileName, figuresOf, renderRun, replaceGenerated } from './allReport.ts';

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
