/**
 * The measured processes of the benchmarks that time their work in a process of its own, so that its CPU, peak RSS
 * and cold start are its own (bench/billRun.ts, bench/collections.ts, bench/batches.ts): the benchmark's entry point
 * run again with its input as JSON in an environment variable, which prints its result as the last line of its
 * stdout; and what such a process measures itself with (wall and CPU time, peak RSS, event-loop stalls, statements).
 * The measured processes load this file, and what it loads counts in their peak RSS: keep it light.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BenchError, active, cpuProfileFlags, runBenchmark, setting } from './common.ts';

export const MB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// A benchmark's measured process: started by the benchmark, and what its entry point runs

/**
 * A benchmark's measured process: its entry point (`entry`, which loads what the benchmark loads, so that this counts
 * in the process's RSS as it always has) run again with the input as JSON in the environment variable `variable`.
 */
export class MeasuredProcess<I> {
  private readonly entry: string;
  private readonly variable: string;

  constructor(entry: URL, variable: string) {
    this.entry = fileURLToPath(entry);
    this.variable = variable;
  }

  /**
   * Starts the process with `input` and resolves with the JSON result it prints as the last line of its stdout (its
   * stderr goes to ours). One that fails or prints no result rejects with a BenchError naming it "the <what>
   * process". Its `node` flags: `--cpu-prof` into BENCH_CPU_PROFILE_DIR when that is set (a V8 CPU profile of each
   * measured process), then `nodeFlags`.
   */
  run<R>(input: I, what: string, nodeFlags: readonly string[] = []): Promise<R> {
    return new Promise((resolve, reject) => {
      const proc = spawn(
        process.execPath,
        [...cpuProfileFlags(), ...nodeFlags, '--import', 'tsx', this.entry],
        {
          env: { ...process.env, [this.variable]: JSON.stringify(input) },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      active.child = proc;
      let out = '';
      proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      proc.once('error', reject);
      proc.once('exit', (code, signal) => {
        active.child = undefined;
        if (code !== 0) {
          reject(new BenchError(`the ${what} process exited with code ${code} (signal ${signal}): ${out}`));
          return;
        }
        try {
          resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as R);
        } catch {
          reject(new BenchError(`the ${what} process printed no result: ${out}`));
        }
      });
    });
  }

  /**
   * What the entry point runs. As the measured process (its input in the variable): `measure` on the input, its
   * result printed as the last line of stdout (a failure: the stack on stderr, exit status 1). As the benchmark:
   * `main` under `runBenchmark`, aborted past BENCH_BUDGET_SECONDS (`budgetSeconds` by default).
   */
  async runEntryPoint(options: {
    measure: (input: I) => Promise<unknown>;
    main: () => Promise<number>;
    budgetSeconds: number;
  }): Promise<void> {
    const input = process.env[this.variable];
    if (!input) {
      const budgetSeconds = setting('BENCH_BUDGET_SECONDS', options.budgetSeconds, 10, 86_400);
      await runBenchmark(options.main, budgetSeconds * 1000);
      return;
    }
    try {
      const result = await options.measure(JSON.parse(input) as I);
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } catch (error) {
      process.stderr.write(`[bench child] ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The measured process's side: what it measures itself with

/** VmHWM of this process (Linux; undefined elsewhere): its peak resident set, start-up included. */
export function vmHwmMb(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The peak resident set so far: VmHWM, or where there is none the resident set now. */
export function peakRssMb(): number {
  return vmHwmMb() ?? process.memoryUsage.rss() / MB;
}

export interface Timed {
  /** Wall time. */
  ms: number;
  /** CPU time of this process (user + system); steadier than wall time on a busy machine. */
  cpuMs: number;
}

/** Runs `work`, timed: its wall time and this process's CPU time over it. */
export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; time: Timed }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { value, time: { ms, cpuMs: (cpu.user + cpu.system) / 1000 } };
}

/**
 * Starts a timer every 10 ms; `stop` ends it and gives the longest gap between its runs (ms): the longest the event
 * loop was held, how long a server process doing the same work would have left requests and timers waiting.
 * `longestCpuMs`, once stopped, is the most CPU time the process spent within one such gap: the same hold measured
 * in the work it did, which other processes on a busy machine stretch less than its wall time.
 * NOTE: perf_hooks' monitorEventLoopDelay does not see a loop held by a chain of promises that never yields.
 */
export function watchEventLoopStalls(): { stop(): number; longestCpuMs(): number } {
  const cpuNow = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  let lastTick = performance.now();
  let lastCpu = cpuNow();
  let longestStallMs = 0;
  let longestCpuMs = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = cpuNow();
    longestStallMs = Math.max(longestStallMs, now - lastTick);
    longestCpuMs = Math.max(longestCpuMs, cpu - lastCpu);
    lastTick = now;
    lastCpu = cpu;
  };
  const ticker = setInterval(tick, 10);
  return {
    stop: () => {
      tick();
      clearInterval(ticker);
      return longestStallMs;
    },
    longestCpuMs: () => longestCpuMs,
  };
}

/** Statements counted: how many in all, and how many of each SQL text, most frequent first. */
export interface StatementTotals {
  total: number;
  bySql: [string, number][];
}

export function statementTotals(counts: ReadonlyMap<string, number>): StatementTotals {
  return {
    total: [...counts.values()].reduce((a, b) => a + b, 0),
    bySql: [...counts].sort((a, b) => b[1] - a[1]),
  };
}

/**
 * BENCH_STATEMENTS=1 only: the statements run while a phase is set, counted by phase and SQL text through the
 * storage's query hook (`storageOptions`), which the service runs without (none when not counting).
 */
export class StatementCounter<P extends string> {
  readonly enabled = process.env.BENCH_STATEMENTS === '1';
  /** The phase the statements run now count in; none: not counted. */
  phase: P | undefined;
  private readonly byPhase = new Map<P, Map<string, number>>();

  /** For `openStorage`: the query hook when counting. */
  storageOptions(): { onQuery?: (sql: string) => void } {
    return this.enabled ? { onQuery: (sql) => this.count(sql) } : {};
  }

  totals(phase: P): StatementTotals {
    return statementTotals(this.byPhase.get(phase) ?? new Map<string, number>());
  }

  private count(sql: string): void {
    if (this.phase === undefined) return;
    let counts = this.byPhase.get(this.phase);
    if (!counts) this.byPhase.set(this.phase, (counts = new Map()));
    counts.set(sql, (counts.get(sql) ?? 0) + 1);
  }
}
