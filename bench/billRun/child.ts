/** The bill run's own process: it runs the bill run and nothing else, so that its peak RSS is the bill run's. */
import crypto from 'node:crypto';
import { pino } from 'pino';
import { runBilling } from '../../src/billing/billRun.ts';
import type { BillingDeps, BillRunSummary } from '../../src/billing/billRun.ts';
import { fixedClock, systemClock } from '../../src/clock.ts';
import { connectModules } from '../../src/connectModules.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';
import { MB, MeasuredProcess, timed, vmHwmMb } from '../measuredProcess.ts';
import { AS_OF } from './population.ts';

export interface ChildInput {
  target: DatabaseTarget;
  accountId: number;
}

/**
 * The bill run's process: the benchmark's entry point, which calls `child` when it finds its input in
 * BENCH_BILLRUN_CHILD. So that process loads what the entry point loads, as it always has: that counts in its RSS.
 */
export const billRunProcess = new MeasuredProcess<ChildInput>(
  new URL('../billRun.ts', import.meta.url),
  'BENCH_BILLRUN_CHILD',
);

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

/** The bill run, measured: what the process prints as its result. */
export async function child(input: ChildInput): Promise<ChildResult> {
  // As every entry point: the bill run's events render through the ports it plugs in.
  connectModules();
  const storage = openStorage(input.target);
  const deps: BillingDeps = {
    db: storage.db,
    clock: fixedClock(`${AS_OF}T00:00:00.000Z`),
    wallClock: systemClock,
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
  const { value: summary, time } = await timed(() =>
    runBilling(deps, { accountId: input.accountId, asOf: { date: AS_OF } }),
  );
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
  return {
    seconds: time.ms / 1000,
    summary,
    peakRssMb: vmHwmMb() ?? sampled / MB,
    sampledPeakRssMb: sampled / MB,
    rssBeforeMb: rssBefore / MB,
    cpuSeconds: time.cpuMs / 1000,
  };
}

export function runChild(input: ChildInput): Promise<ChildResult> {
  // BENCH_MEMORY_TRACE=1: the bill run's process reports its memory after the run and a full collection.
  const nodeFlags = process.env.BENCH_MEMORY_TRACE === '1' ? ['--expose-gc'] : [];
  // BENCH_CHILD_NODE_FLAGS: more node flags for that process (diagnostics, e.g. --max-semi-space-size=4).
  nodeFlags.push(...(process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(' ').filter(Boolean));
  // BENCH_CPU_PROFILE_DIR: a V8 CPU profile of the bill run's process is written there (MeasuredProcess.run).
  return billRunProcess.run(input, 'bill run', nodeFlags);
}
