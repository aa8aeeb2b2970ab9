/**
 * Batch benchmark (bench/README.md): building plus exporting a 500-line SEPA batch of a bankfile
 * gateway. The collection run (`runBatches`) builds the submitted batch and `GET /v1/batches/{token}/file` exports
 * it, in a fresh process per repetition (wall time, CPU, peak RSS), cold and then warm (a second batch in the same
 * process), beside a floor measured the same way in the same run (one SELECT of the lines, their IBANs opened,
 * `buildPain008`); what the build and the file hold is checked before any figure. Adding the lines through the API,
 * one request after the other, is timed too.
 *
 *   npm run bench:batches                    SQLite only (a fresh temporary file)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:batches   SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Settings (environment): BENCH_LINES (default 500), BENCH_REPEATS (default 5; two batches each),
 * BENCH_WARM_REPEATS (default 20), BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL), BENCH_STATEMENTS=1. See
 * bench/README.md.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseTarget } from '../src/config.ts';
import { batchProcesses, child, runChild } from './batches/child.ts';
import type { BuildResult, ChildInput, FloorResult } from './batches/child.ts';
import {
  BenchError,
  forEachDialect,
  freshDatabases,
  log,
  logStatementCounts,
  median,
  printJsonLine,
  printResultsTable,
  round,
  setting,
} from './common.ts';
import type { Dialect } from './common.ts';
import { statementTotals } from './measuredProcess.ts';
import type { StatementTotals } from './measuredProcess.ts';

// NOTE: the measured processes load this file. What only the parent needs (the service, to seed through its API;
// the checks) is imported inside `benchDialect`: all they load counts in those processes' peak RSS.

/** A 500-line batch built and exported within 2× its floor, the loop held 50 ms at most (bench/README.md). */
const TARGET_TIMES_FLOOR = 2;
const TARGET_STALL_MS = 50;

/** One repetition: two batches' lines added; one process building and exporting both; the floor's process. */
interface Repetition {
  repetition: number;
  /** Lines added through the API per second, for the two batches of the repetition (their mean). */
  linesPerSecond: number;
  addCpuMsPerLine: number;
  /** Mean ms a line over the first and the last tenth of a batch's lines (the two batches' mean). */
  addFirstTenthMs: number;
  addLastTenthMs: number;
  /** Cold: the process's first build and first download. */
  buildMs: number;
  buildCpuMs: number;
  exportMs: number;
  exportCpuMs: number;
  buildExportMs: number;
  longestStallMs: number;
  longestStallCpuMs: number;
  /** Warm: the same process's second batch, built and exported after the first. */
  warmBuildMs: number;
  warmBuildCpuMs: number;
  warmExportMs: number;
  warmBuildExportMs: number;
  /** The first batch's file downloaded again (the median of BENCH_WARM_REPEATS). */
  exportAgainMs: number;
  peakRssMb: number;
  endPeakRssMb: number;
  rssBeforeMb: number;
  fileBytes: number;
  /** The floor, cold (its process's first time), and its parts. */
  floorMs: number;
  floorCpuMs: number;
  floorSelectMs: number;
  floorOpenMs: number;
  floorFileMs: number;
  /** The floor again in the same process, warm (medians), its parts, and buildPain008 alone on its input. */
  floorWarmMs: number;
  floorSelectWarmMs: number;
  floorOpenWarmMs: number;
  floorFileWarmMs: number;
  pain008WarmMs: number;
  floorPeakRssMb: number;
  /** Cold build + export over the cold floor (each its process's first), and warm over warm. */
  timesFloor: number;
  warmTimesFloor: number;
  /** Whether the floor made byte for byte the file the export served. */
  floorFileIdentical: boolean;
}

type Numbers = Omit<Repetition, 'repetition' | 'floorFileIdentical'>;

/** Each figure's median over the repetitions, the repetitions themselves, and the seeding. */
interface Figures {
  lines: number;
  repetitions: number;
  median: Numbers;
  runs: Repetition[];
  floorFileIdentical: boolean;
  seedSeconds: number;
}

/** BENCH_STATEMENTS=1: statements counted by SQL text, the 40 most frequent, on stderr. */
function logCounts(what: string, { total, bySql }: StatementTotals, lines: number): void {
  logStatementCounts(`${what}: ${total} statements, ${(total / lines).toFixed(2)} a line:`, bySql);
}

/** BENCH_STATEMENTS=1: the cold build's and export's statements. */
function logStatements(dialect: Dialect, repetition: number, result: BuildResult, lines: number): void {
  for (const phase of ['build', 'export'] as const) {
    const counted = result.statements?.[phase];
    if (counted) logCounts(`${dialect} repetition ${repetition} ${phase}`, counted, lines);
  }
}

async function benchDialect(
  dialect: Dialect,
  target: DatabaseTarget,
  tempDir: string,
  lines: number,
  repetitions: number,
  warmRepeats: number,
): Promise<Figures> {
  const { seed, ACTION_DATE } = await import('./batches/population.ts');
  const { verify } = await import('./batches/checks.ts');

  const batchCount = repetitions * 2;
  log(
    `${dialect}: seeding ${lines} customers with sepa accounts, ${lines * batchCount} invoices, ${batchCount} batches`,
  );
  const addStatements = process.env.BENCH_STATEMENTS === '1' ? new Map<string, number>() : undefined;
  const seedStarted = performance.now();
  const population = await seed(target, tempDir, lines, batchCount, addStatements);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`${dialect}: seeded in ${seedSeconds.toFixed(1)} s`);
  if (addStatements) {
    logCounts(`${dialect} adding the first batch's lines`, statementTotals(addStatements), lines);
  }

  const runs: Repetition[] = [];
  const db = population.service.storage.db;
  try {
    for (let r = 0; r < repetitions; r += 1) {
      const first = population.batches[2 * r]!;
      const second = population.batches[2 * r + 1]!;
      const file = (name: string) => path.join(tempDir, `repetition-${r + 1}-${name}.xml`);
      await population.call(
        'PUT',
        '/v1/batches/submit',
        { BatchToken: first.token, ActionDate: ACTION_DATE },
        204,
      );
      const input = (mode: ChildInput['mode']): ChildInput => ({
        mode,
        target,
        accountId: population.accountId,
        apiKey: population.apiKey,
        batchId: first.id,
        batchToken: first.token,
        ...(mode === 'build'
          ? { warmBatch: { token: second.token, outFile: file('warm'), actionDate: ACTION_DATE } }
          : {}),
        encryptionKey: population.encryptionKey,
        outFile: file(mode),
        warmRepeats,
      });
      const run = await runChild<BuildResult>(input('build'));
      logStatements(dialect, r + 1, run, lines);
      // After the build: the floor reads the batch's message id and submission, to make the very same file.
      const floor = await runChild<FloorResult>(input('floor'));
      if (!run.warm) throw new BenchError('the build process built no second batch');
      const exported = readFileSync(file('build'), 'utf8');
      await verify(db, population, first, run, exported, { sameOnLaterDownloads: run.exportWarmSame });
      await verify(db, population, second, run.warm, readFileSync(file('warm'), 'utf8'), {
        submittedAtBuild: true,
      });
      if (floor.lines !== lines) throw new BenchError(`the floor read ${floor.lines} lines, not ${lines}`);
      const floorFileIdentical = readFileSync(file('floor'), 'utf8') === exported;

      const buildExportMs = run.build.ms + run.export.ms;
      const warmBuildExportMs = run.warm.build.ms + run.warm.export.ms;
      const addSeconds = first.addSeconds + second.addSeconds;
      const rep: Repetition = {
        repetition: r + 1,
        linesPerSecond: round((2 * lines) / addSeconds, 1),
        addCpuMsPerLine: round(((first.addCpuSeconds + second.addCpuSeconds) * 1000) / (2 * lines), 3),
        addFirstTenthMs: round((first.addFirstTenthMs + second.addFirstTenthMs) / 2, 2),
        addLastTenthMs: round((first.addLastTenthMs + second.addLastTenthMs) / 2, 2),
        buildMs: round(run.build.ms, 1),
        buildCpuMs: round(run.build.cpuMs, 1),
        exportMs: round(run.export.ms, 1),
        exportCpuMs: round(run.export.cpuMs, 1),
        buildExportMs: round(buildExportMs, 1),
        longestStallMs: round(run.longestStallMs, 1),
        longestStallCpuMs: round(run.longestStallCpuMs, 1),
        warmBuildMs: round(run.warm.build.ms, 1),
        warmBuildCpuMs: round(run.warm.build.cpuMs, 1),
        warmExportMs: round(run.warm.export.ms, 1),
        warmBuildExportMs: round(warmBuildExportMs, 1),
        exportAgainMs: round(run.exportWarmMs, 2),
        peakRssMb: round(run.peakRssMb, 1),
        endPeakRssMb: round(run.endPeakRssMb, 1),
        rssBeforeMb: round(run.rssBeforeMb, 1),
        fileBytes: run.exportBytes,
        floorMs: round(floor.floor.ms, 1),
        floorCpuMs: round(floor.floor.cpuMs, 1),
        floorSelectMs: round(floor.selectMs, 1),
        floorOpenMs: round(floor.openMs, 1),
        floorFileMs: round(floor.fileMs, 1),
        floorWarmMs: round(floor.floorWarmMs, 2),
        floorSelectWarmMs: round(floor.selectWarmMs, 2),
        floorOpenWarmMs: round(floor.openWarmMs, 2),
        floorFileWarmMs: round(floor.fileInputWarmMs, 2),
        pain008WarmMs: round(floor.fileWarmMs, 2),
        floorPeakRssMb: round(floor.peakRssMb, 1),
        timesFloor: round(buildExportMs / floor.floor.ms, 2),
        warmTimesFloor: round(warmBuildExportMs / floor.floorWarmMs, 2),
        floorFileIdentical,
      };
      runs.push(rep);
      log(
        `${dialect}: repetition ${r + 1} of ${repetitions}: cold build ${rep.buildMs} ms + export ${rep.exportMs} ms ` +
          `(floor ${rep.floorMs} ms, ${rep.timesFloor}×); warm ${rep.warmBuildMs} + ${rep.warmExportMs} ms ` +
          `(floor ${rep.floorWarmMs} ms, ${rep.warmTimesFloor}×); both batches checked`,
      );
      if (!floorFileIdentical) {
        log(
          `${dialect}: WARNING: the floor's file differs from the exported one (it no longer makes the same file)`,
        );
      }
    }
  } finally {
    await population.service.close();
  }

  const keys = Object.keys(runs[0]!).filter(
    (key) => key !== 'repetition' && key !== 'floorFileIdentical',
  ) as (keyof Numbers)[];
  return {
    lines,
    repetitions,
    median: Object.fromEntries(
      keys.map((key) => [key, round(median(runs.map((run) => run[key])), 3)]),
    ) as unknown as Numbers,
    runs,
    floorFileIdentical: runs.every((run) => run.floorFileIdentical),
    seedSeconds: round(seedSeconds, 1),
  };
}

const HEADER = [
  'database',
  'run',
  'lines/s added',
  'build ms',
  'export ms',
  'build+export ms',
  'CPU ms',
  'hold ms',
  'hold CPU ms',
  'peak RSS MB',
  'floor ms',
  'floor RSS MB',
  '× floor',
  'warm build ms',
  'warm export ms',
  'warm floor ms',
  'warm × floor',
];

function row(database: string, run: string, r: Numbers): string[] {
  return [
    database,
    run,
    r.linesPerSecond.toFixed(1),
    r.buildMs.toFixed(1),
    r.exportMs.toFixed(1),
    r.buildExportMs.toFixed(1),
    (r.buildCpuMs + r.exportCpuMs).toFixed(1),
    r.longestStallMs.toFixed(1),
    r.longestStallCpuMs.toFixed(1),
    r.peakRssMb.toFixed(1),
    r.floorMs.toFixed(1),
    r.floorPeakRssMb.toFixed(1),
    r.timesFloor.toFixed(2),
    r.warmBuildMs.toFixed(1),
    r.warmExportMs.toFixed(1),
    r.floorWarmMs.toFixed(1),
    r.warmTimesFloor.toFixed(2),
  ];
}

function printTable(results: Partial<Record<Dialect, Figures>>, lines: number): void {
  printResultsTable(
    `Building (runBatches) and exporting (GET /v1/batches/{token}/file) a ${lines}-line SEPA batch: cold, each repetition in a fresh process, then warm`,
    HEADER,
    results,
    (database, f) => [
      ...f.runs.map((run) => row(database, String(run.repetition), run)),
      row(database, 'median', f.median),
    ],
  );
}

async function main(): Promise<number> {
  const lines = Math.round(setting('BENCH_LINES', 500, 1, 500));
  const repetitions = Math.round(setting('BENCH_REPEATS', 5, 1, 25));
  const warmRepeats = Math.round(setting('BENCH_WARM_REPEATS', 20, 1, 200));
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-batches-',
    ...freshDatabases(['batches']),
    bench: ({ dialect, targets }, tempDir) =>
      benchDialect(dialect, targets.batches, tempDir, lines, repetitions, warmRepeats),
  });
  printTable(results, lines);
  for (const [dialect, f] of Object.entries(results) as [Dialect, Figures][]) {
    if (!f.floorFileIdentical)
      log(`${dialect}: the floor's file was not the exported one in every repetition`);
  }
  const targets = (Object.entries(results) as [Dialect, Figures][]).flatMap(([dialect, f]) => [
    {
      metric: `${dialect}.timesFloor`,
      max: TARGET_TIMES_FLOOR,
      value: f.median.timesFloor,
      met: f.median.timesFloor <= TARGET_TIMES_FLOOR,
    },
    {
      metric: `${dialect}.longestStallMs`,
      max: TARGET_STALL_MS,
      value: f.median.longestStallMs,
      met: f.median.longestStallMs <= TARGET_STALL_MS,
    },
  ]);
  console.log(
    `Targets (cold medians): ${targets.map((t) => `${t.metric} <= ${t.max}: ${t.value} — ${t.met ? 'met' : 'NOT MET'}`).join('; ')}`,
  );
  const { RUN_DATE } = await import('./batches/shared.ts');
  printJsonLine('billing-batches', {
    loadAverage: os.loadavg().map((value) => round(value, 2)),
    lines,
    repetitions,
    warmRepeats,
    runDate: RUN_DATE,
    results,
    targets,
  });
  return process.env.BENCH_STRICT === '1' && !targets.every((t) => t.met) ? 1 : 0;
}

// A measured process (its input in BENCH_BATCHES_CHILD), or the benchmark, which stops by itself: half an hour is
// far beyond a run of the defaults on both databases.
await batchProcesses.runEntryPoint({ measure: child, main, budgetSeconds: 1800 });
