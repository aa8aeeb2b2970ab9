/**
 * The bill run's own process, so that its peak RSS is the bill run's: the compiled `billing run` as it ships
 * (`runCompiledBillRun`), or for the diagnostics that need the run's insides (BENCH_PHASES=1, BENCH_STATEMENTS=1,
 * BENCH_ALLOCATION_PROFILE_DIR) the benchmark's entry point under tsx calling the bill run itself (`child`).
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { pino } from 'pino';
import {
  SUBSCRIPTIONS_PER_TRANSACTION,
  billingContext,
  emptySummary,
  runBilling,
} from '../../src/billing/billRun.ts';
import type { BillingDeps, BillRunSummary } from '../../src/billing/billRun.ts';
import { boundHeapForBillRun } from '../../src/billing/billRunHeap.ts';
import { fixedClock, systemClock } from '../../src/clock.ts';
import { startOfDate } from '../../src/core/calendar.ts';
import { getAccount } from '../../src/modules/auth/index.ts';
import { billNextDueSubscriptions } from '../../src/modules/subscriptions/index.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';
import { BenchError, active, cpuProfileFlags } from '../common.ts';
import { sampleAllocations } from '../cpuProfile.ts';
import { MB, MeasuredProcess, timed, vmHwmMb } from '../measuredProcess.ts';
import { AS_OF } from './population.ts';
import { modulePorts } from '../../src/modulePorts.ts';

export interface ChildInput {
  target: DatabaseTarget;
  accountId: number;
  /** A migrated database without accounts: the compiled run's start measured on its own. */
  idle?: DatabaseTarget;
}

/**
 * The bill run's process: the benchmark's entry point, which calls `child` when it finds its input in
 * BENCH_BILLRUN_CHILD. So that process loads what the entry point loads, as it always has: that counts in its RSS.
 */
export const billRunProcess = new MeasuredProcess<ChildInput>(
  new URL('../billRun.ts', import.meta.url),
  'BENCH_BILLRUN_CHILD',
);

/** The process's memory at one moment (MB): resident set, V8's heap (used and reserved), memory outside it. */
export interface MemoryFigures {
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
}

/** One part of the run measured on its own (BENCH_PHASES=1). */
export interface PhaseFigures {
  name: string;
  seconds: number;
  cpuSeconds: number;
  /** VmHWM over the phase alone (reset when it starts, Linux), or the highest RSS sampled. */
  peakRssMb: number;
  /** The highest heap used sampled during the phase. */
  peakHeapUsedMb: number;
  peakHeapTotalMb: number;
  /** At the phase's end. */
  after: MemoryFigures;
}

export interface ChildResult {
  /**
   * `compiled`: `billing run` from dist/, the process timed from its start to its exit; `tsx`: the benchmark's entry
   * point under tsx, the run alone timed (BENCH_PHASES=1, BENCH_STATEMENTS=1).
   */
  process: 'compiled' | 'tsx';
  seconds: number;
  /** Compiled: a process of the same command finding nothing to bill, from start to exit (its `before`). */
  startupSeconds?: number;
  summary: BillRunSummary;
  /** VmHWM of the process (Linux): the peak resident set, start-up included. */
  peakRssMb: number;
  /** The highest of the RSS samples taken every 20 ms during the run (when the event loop let the timer run). */
  sampledPeakRssMb: number;
  rssBeforeMb: number;
  /** The process before the run: its modules loaded, the database open. */
  before: MemoryFigures;
  /** The highest of each figure sampled every 20 ms during the run. */
  sampledPeak: MemoryFigures;
  /** BENCH_PHASES=1: the subscriptions' stretches, then the rest of the bill run, each measured apart. */
  phases?: PhaseFigures[];
  /** CPU seconds (user + system) of the process during the run; steadier than wall time on a busy machine. */
  cpuSeconds: number;
}

function memoryNow(): MemoryFigures {
  const m = process.memoryUsage();
  return {
    rssMb: m.rss / MB,
    heapUsedMb: m.heapUsed / MB,
    heapTotalMb: m.heapTotal / MB,
    externalMb: m.external / MB,
    arrayBuffersMb: m.arrayBuffers / MB,
  };
}

/** The highest of each memory figure, sampled every 20 ms while it runs (when the event loop lets the timer run). */
class MemorySampler {
  peak: MemoryFigures = memoryNow();
  private readonly timer = setInterval(() => this.sample(), 20);

  sample(): void {
    const now = memoryNow();
    for (const key of Object.keys(now) as (keyof MemoryFigures)[]) {
      this.peak[key] = Math.max(this.peak[key], now[key]);
    }
  }

  stop(): MemoryFigures {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

/** Resets VmHWM to the resident set now (Linux: /proc/self/clear_refs), so that a phase's peak is its own. */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** A phase of the run, measured on its own: time, CPU, its peak RSS and heap. */
async function phase<T>(name: string, work: () => Promise<T>): Promise<{ value: T; figures: PhaseFigures }> {
  const peakReset = resetPeakRss();
  const sampler = new MemorySampler();
  const { value, time } = await timed(work);
  const sampled = sampler.stop();
  return {
    value,
    figures: {
      name,
      seconds: time.ms / 1000,
      cpuSeconds: time.cpuMs / 1000,
      peakRssMb: (peakReset ? vmHwmMb() : undefined) ?? sampled.rssMb,
      peakHeapUsedMb: sampled.heapUsedMb,
      peakHeapTotalMb: sampled.heapTotalMb,
      after: memoryNow(),
    },
  };
}

/**
 * The bill run in two phases measured apart (BENCH_PHASES=1): the due subscriptions billed stretch by stretch as the
 * bill run does (billNextDueSubscriptions, with their invoices, e-mails and events), then a bill run of the same
 * account and day, which finds none still due and does the rest (collection, batches, statements, time-driven
 * events). Its summary is the two added up.
 */
async function runInPhases(
  deps: BillingDeps,
  accountId: number,
): Promise<{
  summary: BillRunSummary;
  phases: PhaseFigures[];
}> {
  const account = await getAccount(deps.db, accountId);
  const ctx = billingContext(deps, account, startOfDate(AS_OF, account.timeZone));
  const stretches = await phase('subscriptions', async () => {
    const billed = { ...emptySummary(), accounts: 1 };
    for (let afterId = 0; ;) {
      const outcome = await billNextDueSubscriptions(ctx, AS_OF, SUBSCRIPTIONS_PER_TRANSACTION, afterId);
      billed.subscriptions += outcome.subscriptions;
      billed.invoices += outcome.invoiceIds.length;
      billed.parked += outcome.parked;
      if (outcome.subscriptions < SUBSCRIPTIONS_PER_TRANSACTION) return billed;
      afterId = outcome.lastId;
    }
  });
  const rest = await phase('rest of the run', () => runBilling(deps, { accountId, asOf: { date: AS_OF } }));
  const summary = stretches.value;
  for (const key of Object.keys(summary) as (keyof BillRunSummary)[]) {
    if (key !== 'accounts') summary[key] += rest.value[key];
  }
  return { summary, phases: [stretches.figures, rest.figures] };
}

/**
 * BENCH_STATEMENTS=1: the time the run's statements took (from Kysely's log, so that the run's statements through
 * the driver; SQLite's read connection is not timed), by the kind of statement and its table, logged after the run.
 * Such a run's figures are not the benchmark's.
 */
class StatementTimes {
  readonly enabled = process.env.BENCH_STATEMENTS === '1';
  private readonly byKind = new Map<string, { count: number; ms: number }>();

  storageOptions(): { onQuery?: (sql: string, durationMs?: number) => void } {
    return this.enabled ? { onQuery: (sql, ms) => this.add(sql, ms ?? 0) } : {};
  }

  private add(sql: string, ms: number): void {
    const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? '?';
    const kind = `${verb} ${kindTable(sql)}`;
    const entry = this.byKind.get(kind) ?? { count: 0, ms: 0 };
    entry.count += 1;
    entry.ms += ms;
    this.byKind.set(kind, entry);
  }

  log(): void {
    const list = [...this.byKind].sort((a, b) => b[1].ms - a[1].ms);
    const total = list.reduce((sum, [, e]) => sum + e.ms, 0);
    process.stderr.write(`[bench child] statements: ${total.toFixed(0)} ms in all, by kind and table:\n`);
    for (const [kind, e] of list.slice(0, 25)) {
      process.stderr.write(`  ${e.ms.toFixed(0).padStart(7)} ms ${String(e.count).padStart(7)}×  ${kind}\n`);
    }
  }
}

/**
 * BENCH_ALLOCATION_PROFILE_DIR: where the run allocated its memory, the garbage included (what the young
 * generation's size makes the collector work on: docs/benchmarks.md, "Bill run"), written there as a `.heapprofile`
 * by the function answered (bench/billRun/profileSummary.ts reads it). Such a run's figures are not the benchmark's.
 */
async function startAllocationProfile(
  dir = process.env.BENCH_ALLOCATION_PROFILE_DIR,
): Promise<(() => Promise<void>) | undefined> {
  if (dir === undefined) return undefined;
  const stop = await sampleAllocations(16_384);
  return async () => {
    const file = join(dir, `billrun-${process.pid}.heapprofile`);
    writeFileSync(file, JSON.stringify(await stop()));
    process.stderr.write(`[bench child] allocation profile: ${file}\n`);
  };
}

/** The table a statement writes, or the first it reads. */
function kindTable(sql: string): string {
  const match =
    /^\s*(?:insert into|update|delete from)\s+"?(\w+)"?/i.exec(sql) ?? /\bfrom\s+"?(\w+)"?/i.exec(sql);
  return match?.[1] ?? '?';
}

/** The bill run, measured: what the process prints as its result. */
export async function child(input: ChildInput): Promise<ChildResult> {
  // As every entry point: the bill run's events render through the ports it plugs in; and as `billing run`, the
  // heap bounded for a process that only bills.
  const statements = new StatementTimes();
  const storage = openStorage(input.target, statements.storageOptions());
  boundHeapForBillRun(storage.db);
  const deps: BillingDeps = {
    ports: modulePorts(),
    db: storage.db,
    clock: fixedClock(`${AS_OF}T00:00:00.000Z`),
    wallClock: systemClock,
    log: pino({ level: 'warn' }, pino.destination(2)),
    secrets: createSecretBox(crypto.randomBytes(32)),
    mailQueued: () => {},
  };
  await storage.ping();
  const writeAllocationProfile = await startAllocationProfile();
  const before = memoryNow();
  const sampler = new MemorySampler();
  const { value: run, time } = await timed(
    async (): Promise<{ summary: BillRunSummary; phases?: PhaseFigures[] }> =>
      process.env.BENCH_PHASES === '1'
        ? runInPhases(deps, input.accountId)
        : { summary: await runBilling(deps, { accountId: input.accountId, asOf: { date: AS_OF } }) },
  );
  const sampledPeak = sampler.stop();
  await writeAllocationProfile?.();
  // A busy event loop runs few samples: each phase's own samples count too.
  for (const p of run.phases ?? []) {
    sampledPeak.heapUsedMb = Math.max(sampledPeak.heapUsedMb, p.peakHeapUsedMb);
    sampledPeak.heapTotalMb = Math.max(sampledPeak.heapTotalMb, p.peakHeapTotalMb);
  }
  if (process.env.BENCH_MEMORY_TRACE === '1') {
    (globalThis as { gc?: () => void }).gc?.();
    const m = memoryNow();
    const mb = (n: number) => n.toFixed(1);
    process.stderr.write(
      `[bench child] after the run: rss ${mb(m.rssMb)} MB, heap used ${mb(m.heapUsedMb)} of ${mb(m.heapTotalMb)} MB, ` +
        `external ${mb(m.externalMb)} MB, array buffers ${mb(m.arrayBuffersMb)} MB\n`,
    );
    if (process.env.BENCH_HEAP_SNAPSHOT_DIR) {
      const file = writeHeapSnapshot(
        join(process.env.BENCH_HEAP_SNAPSHOT_DIR, `billrun-${process.pid}.heapsnapshot`),
      );
      process.stderr.write(`[bench child] heap snapshot: ${file}\n`);
    }
  }
  await storage.close();
  if (statements.enabled) statements.log();
  return {
    process: 'tsx',
    seconds: time.ms / 1000,
    summary: run.summary,
    // With phases, VmHWM was reset at each: the run's peak is the highest of theirs.
    peakRssMb: run.phases
      ? Math.max(...run.phases.map((p) => p.peakRssMb))
      : (vmHwmMb() ?? sampledPeak.rssMb),
    sampledPeakRssMb: sampledPeak.rssMb,
    rssBeforeMb: before.rssMb,
    before,
    sampledPeak,
    ...(run.phases ? { phases: run.phases } : {}),
    cpuSeconds: time.cpuMs / 1000,
  };
}

/** Whether this run needs the run's insides, which only the in-process child under tsx can measure. */
export function diagnosticsInProcess(): boolean {
  return (
    process.env.BENCH_PHASES === '1' ||
    process.env.BENCH_STATEMENTS === '1' ||
    process.env.BENCH_ALLOCATION_PROFILE_DIR !== undefined
  );
}

export function runChild(input: ChildInput): Promise<ChildResult> {
  if (!diagnosticsInProcess()) return runCompiledBillRun(input);
  // BENCH_MEMORY_TRACE=1: the bill run's process reports its memory after the run and a full collection.
  const nodeFlags = process.env.BENCH_MEMORY_TRACE === '1' ? ['--expose-gc'] : [];
  // BENCH_CHILD_NODE_FLAGS: more node flags for that process (diagnostics, e.g. --max-semi-space-size=4).
  nodeFlags.push(...(process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(' ').filter(Boolean));
  // BENCH_CPU_PROFILE_DIR: a V8 CPU profile of the bill run's process is written there (MeasuredProcess.run).
  return billRunProcess.run(input, 'bill run', nodeFlags);
}

// ---------------------------------------------------------------------------------------------------------------
// The compiled `billing run`

/**
 * The checkout whose `billing` is measured: this one, or BENCH_BILLING_ROOT (another checkout with its node_modules,
 * e.g. the main branch's code exported beside it, to measure before and after in turn on the same machine).
 */
const ROOT = process.env.BENCH_BILLING_ROOT ?? fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'billing.js');
const PROBE = fileURLToPath(new URL('memoryProbe.mjs', import.meta.url));

/** What bench/billRun/memoryProbe.mjs writes as the process exits. */
interface ProbeFigures {
  peakRssMb: number;
  sampledPeak: MemoryFigures;
  atExit: MemoryFigures;
  afterFullGc?: MemoryFigures;
  heapSnapshot?: string;
  seconds: number;
  cpuSeconds: number;
}

/** dist/ built from the sources now, so that bin/billing.js finds nothing to build in a measured process. */
function buildDist(): void {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { encoding: 'utf8' });
  if (build.status !== 0) throw new BenchError(`the build failed: ${build.stdout}${build.stderr}`);
}

function databaseUrl(target: DatabaseTarget): string {
  return target.dialect === 'sqlite' ? `sqlite:${target.file}` : target.url;
}

/**
 * `billing run --as-of AS_OF [--account ID] --json` as it ships (bin/billing.js, dist/), on `target`, with the memory
 * probe loaded: its summary, its memory, its wall and CPU time from start to exit.
 */
function billingRunCommand(
  target: DatabaseTarget,
  accountId: number | undefined,
  nodeFlags: readonly string[],
): Promise<{ summary: BillRunSummary; probe: ProbeFigures; seconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-billrun-process-'));
  const probeFile = join(dir, 'probe.json');
  const args = ['run', '--as-of', AS_OF, '--json', ...(accountId ? ['--account', String(accountId)] : [])];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [...nodeFlags, '--import', PROBE, BIN, ...args], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl(target),
        DATA_DIR: dir,
        ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
        LOG_LEVEL: 'warn',
        BENCH_MEMORY_PROBE_FILE: probeFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    active.child = proc;
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.once('error', reject);
    proc.once('exit', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      active.child = undefined;
      try {
        if (code !== 0) {
          throw new BenchError(
            `billing ${args.join(' ')} exited with code ${code} (signal ${signal}): ${out}`,
          );
        }
        const summary = JSON.parse(out.trim().split('\n').at(-1) ?? '') as BillRunSummary;
        const probe = JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeFigures;
        resolve({ summary, probe, seconds });
      } catch (error) {
        reject(error instanceof BenchError ? error : new BenchError(`billing run printed no result: ${out}`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/**
 * The bill run as production runs it: `billing run` compiled, without the TypeScript loader. Its `before` is a run
 * of the same command on `idle` (migrated, no account), which loads the same modules, opens its database, finds
 * nothing to bill and exits: its peak RSS is what the process holds before it bills anything.
 */
async function runCompiledBillRun(input: ChildInput): Promise<ChildResult> {
  if (!input.idle) throw new BenchError('the compiled bill run needs an empty database to measure its start');
  buildDist();
  // BENCH_MEMORY_TRACE=1: the probe reports the heap after a full collection at exit (and a heap snapshot).
  const nodeFlags = [
    ...cpuProfileFlags(),
    ...(process.env.BENCH_MEMORY_TRACE === '1' ? ['--expose-gc'] : []),
    ...(process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(' ').filter(Boolean),
  ];
  const idle = await billingRunCommand(input.idle, undefined, nodeFlags);
  if (idle.summary.accounts !== 0) throw new BenchError('the idle bill run found an account to bill');
  const run = await billingRunCommand(input.target, input.accountId, nodeFlags);
  if (run.probe.afterFullGc) {
    const m = run.probe.afterFullGc;
    process.stderr.write(
      `[bench child] after the run: rss ${m.rssMb.toFixed(1)} MB, heap used ${m.heapUsedMb.toFixed(1)} of ` +
        `${m.heapTotalMb.toFixed(1)} MB, external ${m.externalMb.toFixed(1)} MB` +
        `${run.probe.heapSnapshot ? `; heap snapshot: ${run.probe.heapSnapshot}` : ''}\n`,
    );
  }
  return {
    process: 'compiled',
    seconds: run.seconds,
    startupSeconds: idle.seconds,
    summary: run.summary,
    peakRssMb: run.probe.peakRssMb,
    sampledPeakRssMb: run.probe.sampledPeak.rssMb,
    rssBeforeMb: idle.probe.peakRssMb,
    before: { ...idle.probe.atExit, rssMb: idle.probe.peakRssMb },
    sampledPeak: run.probe.sampledPeak,
    cpuSeconds: run.probe.cpuSeconds,
  };
}
