// Every benchmark script, run as `npm run bench:all` runs it but at its tiny settings (bench/benchmarks.ts): a change
// that breaks a benchmark's seeding, its run or its checks fails the suite, so the figures of docs/benchmarks.md stay
// reproducible (bench/README.md, "Benchmarks in the suite"). Its figures are not judged here: speed is measured by
// the benchmarks themselves, never in tests. It runs once, on PostgreSQL only (`*.postgres.test.ts`): each database
// took about 7 minutes of a worker, and the scripts' SQLite half is left to bench:all.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BENCHMARKS } from '../../bench/benchmarks.ts';
import { CLI, ROOT } from '../../bench/harness.ts';

interface ScriptRun {
  exitCode: number | null;
  lastLine: string;
  stderrTail: string;
}

/** The environment of a benchmark run: the suite's own markers left out, so the server runs as `billing serve` does. */
function benchmarkEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(VITEST|NODE_ENV$|TEST_DIALECT$|TEST_DATABASE_URL$|BENCH_)/.test(name),
    ),
  );
  // A benchmark runs SQLite, then PostgreSQL when given its URL; BENCH_POSTGRES_ONLY skips SQLite.
  const database = { BENCH_DATABASE_URL: process.env.TEST_DATABASE_URL, BENCH_POSTGRES_ONLY: '1' };
  return { ...env, ...database, ...settings };
}

function runScript(script: string, settings: Record<string, string>): Promise<ScriptRun> {
  const child = spawn('npm', ['run', '--silent', script], {
    cwd: ROOT,
    env: benchmarkEnv(settings),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ exitCode: code, lastLine: stdout.trim().split('\n').at(-1) ?? '', stderrTail: stderr }),
    );
  });
}

const packageScripts = Object.keys(
  (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts,
);

describe('the benchmark scripts', () => {
  beforeAll(() => {
    // The servers run the compiled service (bin/billing.js): compile it once here, not in each benchmark at once.
    execFileSync(process.execPath, [CLI, '--version'], { cwd: ROOT, stdio: 'ignore' });
  });

  it('lists every bench script of package.json', () => {
    const benchScripts = packageScripts.filter((name) => /^bench(:|$)/.test(name) && name !== 'bench:all');
    expect(BENCHMARKS.map((benchmark) => benchmark.script).sort()).toEqual(benchScripts.sort());
  });

  for (const benchmark of BENCHMARKS) {
    it(`${benchmark.script} seeds, runs and passes its checks`, { timeout: 240_000 }, async () => {
      const run = await runScript(benchmark.script, benchmark.tiny);
      expect(run.exitCode, run.stderrTail).toBe(0);
      const figures = JSON.parse(run.lastLine) as { benchmark?: unknown };
      expect(typeof figures.benchmark, run.lastLine).toBe('string');
    });
  }
});
