/**
 * Bill-run benchmark: one bill run over BENCH_SUBSCRIPTIONS monthly subscriptions due on the same day, measured in
 * a child process of its own (invoices per second, peak RSS), beside the raw insert rate of the same rows.
 *
 *   npm run bench:billing                    SQLite only (fresh temporary files)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:billing   SQLite, then PostgreSQL in fresh, dropped-after schemas
 *
 * Settings (environment): BENCH_SUBSCRIPTIONS (default 100000), BENCH_AUTO_SEND_PERCENT (customers with
 * autoSendInvoice on, default 10), BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL), BENCH_STRICT=1 (exit 1
 * when a target is missed). See bench/README.md.
 */
import { SUBSCRIPTIONS_PER_TRANSACTION } from '../src/billing/billRun.ts';
import { openStorage } from '../src/storage/database.ts';
import { migrateToLatest } from '../src/storage/migrate.ts';
import { verify } from './billRun/checks.ts';
import { billRunProcess, child, runChild } from './billRun/child.ts';
import type { MemoryFigures, PhaseFigures } from './billRun/child.ts';
import { measureFloor } from './billRun/floor.ts';
import { AS_OF, seed } from './billRun/population.ts';
import {
  BenchError,
  forEachDialect,
  freshDatabases,
  log,
  printJsonLine,
  printResultsTable,
  round,
  setting,
} from './common.ts';
import type { Dialect, TargetDatabases } from './common.ts';

/**
 * Targets (bench/README.md, "Bill run"): the share of the floor's rate on each database, and the peak RSS on SQLite
 * (set for 100,000 subscriptions, the default).
 */
const TARGET_VS_FLOOR: Record<Dialect, number> = { sqlite: 0.5, postgres: 0.75 };
const TARGET_PEAK_RSS_MB = 150;

// ---------------------------------------------------------------------------------------------------------------
// One dialect

interface Figures {
  /** `compiled`: `billing run` from dist/, timed from start to exit; `tsx`: in-process diagnostics (BENCH_PHASES). */
  process: 'compiled' | 'tsx';
  subscriptions: number;
  invoices: number;
  seconds: number;
  /** Compiled: the same command's process finding nothing to bill, from start to exit. */
  startupSeconds?: number;
  invoicesPerSecond: number;
  subscriptionsPerSecond: number;
  peakRssMb: number;
  sampledPeakRssMb: number;
  rssBeforeMb: number;
  /** Before the run (modules loaded, database open) and the highest sampled during it: RSS and V8's heap. */
  memory: { before: MemoryFigures; sampledPeak: MemoryFigures };
  /** BENCH_PHASES=1: the subscriptions' stretches and the rest of the run, measured apart. */
  phases?: PhaseFigures[];
  cpuSeconds: number;
  floorRows: number;
  floorSeconds: number;
  floorRowsPerSecond: number;
  floorInvoicesPerSecond: number;
  /** The bill run's invoices per second over the floor's (its seconds over the run's). */
  vsFloor: number;
  seedSeconds: number;
}

/**
 * The database billed, the one that receives the floor's writes (PostgreSQL: `bench_<random>_floor`), and an empty
 * one, migrated, on which the compiled `billing run` finds nothing to bill (its start measured on its own).
 */
type Databases = TargetDatabases<'run' | 'floor' | 'idle'>;

async function benchDialect(databases: Databases, count: number, autoSendPercent: number): Promise<Figures> {
  const { dialect, targets } = databases;
  const runStorage = openStorage(targets.run);
  const floorStorage = openStorage(targets.floor);
  try {
    log(`${dialect}: seeding ${count} subscriptions (and the floor's copy)`);
    const seedStarted = performance.now();
    const seeded = await seed(runStorage.db, count, autoSendPercent);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const floorSeeded = await seed(floorStorage.db, count, autoSendPercent);
    if (
      floorSeeded.accountId !== seeded.accountId ||
      floorSeeded.before.periodId !== seeded.before.periodId
    ) {
      throw new BenchError('the floor database was not seeded the same way');
    }
    log(
      `${dialect}: seeded in ${seedSeconds.toFixed(1)} s; ${seeded.expectedInvoices} invoices expected; running the bill run`,
    );
    const idleStorage = openStorage(targets.idle);
    await migrateToLatest(idleStorage.db).finally(() => idleStorage.close());
    const result = await runChild({ target: targets.run, accountId: seeded.accountId, idle: targets.idle });
    log(`${dialect}: bill run took ${result.seconds.toFixed(1)} s; checking it`);
    await verify(runStorage.db, seeded, result.summary);
    log(`${dialect}: measuring the floor`);
    const floor = await measureFloor(runStorage.db, floorStorage.db, seeded);
    const invoicesPerSecond = result.summary.invoices / result.seconds;
    const floorInvoicesPerSecond = result.summary.invoices / floor.seconds;
    return {
      process: result.process,
      subscriptions: result.summary.subscriptions,
      invoices: result.summary.invoices,
      seconds: round(result.seconds, 2),
      ...(result.startupSeconds === undefined ? {} : { startupSeconds: round(result.startupSeconds, 2) }),
      invoicesPerSecond: round(invoicesPerSecond, 1),
      subscriptionsPerSecond: round(result.summary.subscriptions / result.seconds, 1),
      peakRssMb: round(result.peakRssMb, 1),
      sampledPeakRssMb: round(result.sampledPeakRssMb, 1),
      rssBeforeMb: round(result.rssBeforeMb, 1),
      memory: { before: roundedMemory(result.before), sampledPeak: roundedMemory(result.sampledPeak) },
      ...(result.phases
        ? {
            phases: result.phases.map((p) => ({
              ...p,
              seconds: round(p.seconds, 2),
              cpuSeconds: round(p.cpuSeconds, 2),
              peakRssMb: round(p.peakRssMb, 1),
              peakHeapUsedMb: round(p.peakHeapUsedMb, 1),
              peakHeapTotalMb: round(p.peakHeapTotalMb, 1),
              after: roundedMemory(p.after),
            })),
          }
        : {}),
      cpuSeconds: round(result.cpuSeconds, 2),
      floorRows: floor.rows,
      floorSeconds: round(floor.seconds, 2),
      floorRowsPerSecond: round(floor.rows / floor.seconds, 1),
      floorInvoicesPerSecond: round(floorInvoicesPerSecond, 1),
      vsFloor: round(invoicesPerSecond / floorInvoicesPerSecond, 3),
      seedSeconds: round(seedSeconds, 1),
    };
  } finally {
    await runStorage.close();
    await floorStorage.close();
  }
}

function roundedMemory(m: MemoryFigures): MemoryFigures {
  return {
    rssMb: round(m.rssMb, 1),
    heapUsedMb: round(m.heapUsedMb, 1),
    heapTotalMb: round(m.heapTotalMb, 1),
    externalMb: round(m.externalMb, 1),
    arrayBuffersMb: round(m.arrayBuffersMb, 1),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printTable(results: Partial<Record<Dialect, Figures>>): void {
  const header = [
    'database',
    'subscriptions',
    'invoices',
    'seconds',
    'invoices/s',
    'peak RSS MB',
    'floor rows',
    'floor s',
    'floor rows/s',
    'floor inv/s',
    'vs floor',
  ];
  printResultsTable(
    `Bill run as of ${AS_OF}, stretches of ${SUBSCRIPTIONS_PER_TRANSACTION}, in a process of its own ` +
      (Object.values(results)[0]?.process === 'tsx'
        ? '(in-process diagnostics under tsx: the run alone timed)'
        : '(`billing run` compiled, timed from its start to its exit)'),
    header,
    results,
    (database, f) => [
      [
        database,
        String(f.subscriptions),
        String(f.invoices),
        f.seconds.toFixed(2),
        f.invoicesPerSecond.toFixed(1),
        f.peakRssMb.toFixed(1),
        String(f.floorRows),
        f.floorSeconds.toFixed(2),
        f.floorRowsPerSecond.toFixed(1),
        f.floorInvoicesPerSecond.toFixed(1),
        `${(f.vsFloor * 100).toFixed(1)}%`,
      ],
    ],
  );
  printResultsTable(
    "Memory of the bill run's process (MB): before the run (compiled: the same command finding nothing to bill), " +
      'the highest sampled during it, and per phase (BENCH_PHASES=1)',
    ['database', 'when', 'seconds', 'CPU s', 'peak RSS', 'heap used', 'heap total', 'external'],
    results,
    (database, f) => [
      [
        database,
        f.process === 'compiled' ? 'before (nothing to bill)' : 'before',
        f.startupSeconds?.toFixed(2) ?? '',
        '',
        f.rssBeforeMb.toFixed(1),
        f.memory.before.heapUsedMb.toFixed(1),
        f.memory.before.heapTotalMb.toFixed(1),
        f.memory.before.externalMb.toFixed(1),
      ],
      [
        database,
        'run (sampled)',
        f.seconds.toFixed(2),
        f.cpuSeconds.toFixed(2),
        f.peakRssMb.toFixed(1),
        f.memory.sampledPeak.heapUsedMb.toFixed(1),
        f.memory.sampledPeak.heapTotalMb.toFixed(1),
        f.memory.sampledPeak.externalMb.toFixed(1),
      ],
      ...(f.phases ?? []).map((p) => [
        database,
        p.name,
        p.seconds.toFixed(2),
        p.cpuSeconds.toFixed(2),
        p.peakRssMb.toFixed(1),
        p.peakHeapUsedMb.toFixed(1),
        p.peakHeapTotalMb.toFixed(1),
        p.after.externalMb.toFixed(1),
      ]),
    ],
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const count = Math.round(setting('BENCH_SUBSCRIPTIONS', 100_000, 20, 2_000_000));
  const autoSendPercent = Math.round(setting('BENCH_AUTO_SEND_PERCENT', 10, 0, 100));
  const strict = process.env.BENCH_STRICT === '1';

  const results = await forEachDialect({
    tempPrefix: 'billing-bench-billrun-',
    ...freshDatabases(['run', 'floor', 'idle']),
    bench: (databases) => benchDialect(databases, count, autoSendPercent),
  });
  printTable(results);

  // The memory target is SQLite's (its run holds the rows in the process); BENCH_POSTGRES_ONLY has none to judge.
  const sqlite = results.sqlite;
  const rateTargets = (Object.entries(results) as [Dialect, Figures][]).map(([dialect, f]) => ({
    metric: `${dialect}.vsFloor`,
    min: TARGET_VS_FLOOR[dialect],
    value: f.vsFloor,
    met: f.vsFloor >= TARGET_VS_FLOOR[dialect],
  }));
  const memoryMet = sqlite === undefined || sqlite.peakRssMb < TARGET_PEAK_RSS_MB;
  const memoryText = sqlite
    ? `; sqlite.peakRssMb < ${TARGET_PEAK_RSS_MB}: ${sqlite.peakRssMb.toFixed(1)} MB — ${memoryMet ? 'met' : 'NOT MET'}`
    : '';
  console.log(
    `Targets: ${rateTargets
      .map((t) => `${t.metric} >= ${t.min}: ${t.value.toFixed(3)} — ${t.met ? 'met' : 'NOT MET'}`)
      .join('; ')}${memoryText}`,
  );
  printJsonLine('billing-billrun', {
    subscriptions: count,
    autoSendPercent,
    batchSize: SUBSCRIPTIONS_PER_TRANSACTION,
    asOf: AS_OF,
    results,
    targets: {
      vsFloor: rateTargets,
      peakRssMb: {
        metric: 'sqlite.peakRssMb',
        max: TARGET_PEAK_RSS_MB,
        value: sqlite?.peakRssMb ?? null,
        met: memoryMet,
      },
    },
  });
  return strict && !(rateTargets.every((t) => t.met) && memoryMet) ? 1 : 0;
}

// The bill run's process (its input in BENCH_BILLRUN_CHILD), or the benchmark, which stops by itself: an hour is
// far beyond a run of the defaults on both databases.
await billRunProcess.runEntryPoint({ measure: child, main, budgetSeconds: 3600 });
