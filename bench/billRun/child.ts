/** The bill run's own process: it runs the bill run and nothing else, so that its peak RSS is the bill run's. */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { runBilling } from '../../src/billing/billRun.ts';
import type { BillingDeps, BillRunSummary } from '../../src/billing/billRun.ts';
import { fixedClock } from '../../src/clock.ts';
import { connectModules } from '../../src/connectModules.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';
import { BenchError, active } from '../common.ts';
import { AS_OF } from './population.ts';

/**
 * What the bill run's process runs: the benchmark's entry point, which calls `child` when it finds its input in
 * BENCH_BILLRUN_CHILD. So that process loads what the entry point loads, as it always has: that counts in its RSS.
 */
const ENTRY = fileURLToPath(new URL('../billRun.ts', import.meta.url));
const MB = 1024 * 1024;

export interface ChildInput {
  target: DatabaseTarget;
  accountId: number;
}

export interface ChildResult {
  seconds: number;
  summary: BillRunSummary;
  /** VmHWM of the process (Linux): the peak resident set, start-up included. */
  peakRssMb: number;
  /** The highest of the RSS samples taken every 20 ms during the run (when the event loop let the timer run). */
  sampledPeakRssMb: number;
  rssBeforeMb: number;
  /** CPU seconds (user + system) of the process during the run; steadier than wall time on a busy machine. */
  cpuSeconds: number;
}

function vmHwmMb(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function child(input: ChildInput): Promise<void> {
  // As every entry point: the bill run's events render through the ports it plugs in.
  connectModules();
  const storage = openStorage(input.target);
  const deps: BillingDeps = {
    db: storage.db,
    clock: fixedClock(`${AS_OF}T00:00:00.000Z`),
    log: pino({ level: 'warn' }, pino.destination(2)),
    secrets: createSecretBox(crypto.randomBytes(32)),
    mailQueued: () => {},
  };
  await storage.ping();
  const rssBefore = process.memoryUsage.rss();
  let sampled = rssBefore;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage.rss());
  }, 20);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const summary = await runBilling(deps, { accountId: input.accountId, asOf: { date: AS_OF } });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  if (process.env.BENCH_MEMORY_TRACE === '1') {
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    const mb = (n: number) => (n / MB).toFixed(1);
    process.stderr.write(
      `[bench child] after the run: rss ${mb(m.rss)} MB, heap used ${mb(m.heapUsed)} of ${mb(m.heapTotal)} MB, ` +
        `external ${mb(m.external)} MB, array buffers ${mb(m.arrayBuffers)} MB\n`,
    );
  }
  sampled = Math.max(sampled, process.memoryUsage.rss());
  await storage.close();
  const result: ChildResult = {
    seconds,
    summary,
    peakRssMb: vmHwmMb() ?? sampled / MB,
    sampledPeakRssMb: sampled / MB,
    rssBeforeMb: rssBefore / MB,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export function runChild(input: ChildInput): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROFILE_DIR: a V8 CPU profile of the bill run's process is written there (node --cpu-prof).
    const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
    const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    // BENCH_MEMORY_TRACE=1: the bill run's process reports its memory after the run and a full collection.
    if (process.env.BENCH_MEMORY_TRACE === '1') profile.push('--expose-gc');
    // BENCH_CHILD_NODE_FLAGS: more node flags for that process (diagnostics, e.g. --max-semi-space-size=4).
    profile.push(...(process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(' ').filter(Boolean));
    const proc = spawn(process.execPath, [...profile, '--import', 'tsx', ENTRY], {
      env: { ...process.env, BENCH_BILLRUN_CHILD: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    active.child = proc;
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.once('error', reject);
    proc.once('exit', (code, signal) => {
      active.child = undefined;
      if (code !== 0) {
        reject(new BenchError(`the bill run process exited with code ${code} (signal ${signal}): ${out}`));
        return;
      }
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as ChildResult);
      } catch {
        reject(new BenchError(`the bill run process printed no result: ${out}`));
      }
    });
  });
}
