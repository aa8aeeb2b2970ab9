/**
 * Collection benchmark: BENCH_INVOICES card invoices due on the same day, collected through the test gateway by
 * `collectDueInvoices` in a process of its own (charges per second, peak RSS), beside a floor of as many bare
 * gateway charges measured the same way in the same run; what the collection did is checked before any figure.
 *
 *   npm run bench:collections                    SQLite only (a fresh temporary file)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:collections   SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Settings (environment): BENCH_INVOICES (default 10000), BENCH_DECLINE_PERCENT (cards that decline, default 10),
 * BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL). See bench/README.md.
 */
import type { DatabaseTarget } from '../src/config.ts';
import { collectionProcesses, child, runChild } from './collections/child.ts';
import type { ChildInput, ChildResult } from './collections/child.ts';
import {
  BenchError,
  forEachDialect,
  freshDatabases,
  log,
  logStatementCounts,
  printJsonLine,
  printResultsTable,
  round,
  setting,
} from './common.ts';
import type { Dialect } from './common.ts';

// NOTE: the measured processes load this file. What only the parent needs (the service, to seed through its API;
// the checks) is imported inside `main`: all they load counts in those processes' peak RSS.

/** Card charges at half the rate of the bare gateway calls or more, on each database (bench/README.md). */
const TARGET_VS_FLOOR = 0.5;

interface Figures {
  invoices: number;
  collected: number;
  declined: number;
  seconds: number;
  /** Attempts recorded per second. */
  chargesPerSecond: number;
  cpuSeconds: number;
  cpuMsPerCharge: number;
  peakRssMb: number;
  rssBeforeMb: number;
  /** The longest the collection's process went without running a timer (a server doing it would not answer). */
  longestStallSeconds: number;
  floorSeconds: number;
  floorChargesPerSecond: number;
  floorCpuSeconds: number;
  floorPeakRssMb: number;
  /** The collection's charges per second over the floor's (the floor's seconds over the collection's). */
  vsFloor: number;
  events: Record<string, number>;
  seedSeconds: number;
}

function logStatements(dialect: Dialect, mode: string, result: ChildResult, charges: number): void {
  if (result.statements === undefined || !result.statementCounts) return;
  logStatementCounts(
    `${dialect} ${mode}: ${result.statements} statements, ${(result.statements / charges).toFixed(1)} a charge:`,
    result.statementCounts,
  );
}

async function benchDialect(
  dialect: Dialect,
  target: DatabaseTarget,
  tempDir: string,
  count: number,
  declinePercent: number,
): Promise<Figures> {
  const { seed, COLLECT_AT } = await import('./collections/population.ts');
  const { collectionEvents, verify } = await import('./collections/checks.ts');
  const { openStorage } = await import('../src/storage/database.ts');

  log(`${dialect}: seeding ${count} customers, cards and due card invoices through the API`);
  const seedStarted = performance.now();
  const seeded = await seed(target, tempDir, count, declinePercent);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`${dialect}: seeded in ${seedSeconds.toFixed(1)} s (${seeded.declining} declining cards)`);

  const input = (mode: ChildInput['mode']): ChildInput => ({
    mode,
    target,
    accountId: seeded.accountId,
    gatewayId: seeded.gatewayId,
    at: COLLECT_AT,
    encryptionKey: seeded.encryptionKey,
  });
  log(`${dialect}: measuring the floor (${count} bare charges)`);
  const floor = await runChild(input('floor'));
  logStatements(dialect, 'floor', floor, count);
  if (floor.counted.attempts !== count || floor.counted.declined !== seeded.declining) {
    throw new BenchError(`the floor charged wrong: ${JSON.stringify(floor.counted)}`);
  }
  log(`${dialect}: floor took ${floor.seconds.toFixed(1)} s; collecting`);
  const run = await runChild(input('collect'));
  logStatements(dialect, 'collection', run, count);
  log(`${dialect}: collection took ${run.seconds.toFixed(1)} s; checking it`);

  const storage = openStorage(target);
  let events: Record<string, number>;
  try {
    events = await collectionEvents(storage.db, seeded.accountId);
    await verify(storage.db, seeded, run.counted, events);
  } finally {
    await storage.close();
  }
  const charges = run.counted.attempts;
  const chargesPerSecond = charges / run.seconds;
  const floorChargesPerSecond = floor.counted.attempts / floor.seconds;
  return {
    invoices: count,
    collected: run.counted.succeeded,
    declined: run.counted.declined,
    seconds: round(run.seconds, 2),
    chargesPerSecond: round(chargesPerSecond, 1),
    cpuSeconds: round(run.cpuSeconds, 2),
    cpuMsPerCharge: round((run.cpuSeconds * 1000) / charges, 3),
    peakRssMb: round(run.peakRssMb, 1),
    rssBeforeMb: round(run.rssBeforeMb, 1),
    longestStallSeconds: round(run.longestStallMs / 1000, 2),
    floorSeconds: round(floor.seconds, 2),
    floorChargesPerSecond: round(floorChargesPerSecond, 1),
    floorCpuSeconds: round(floor.cpuSeconds, 2),
    floorPeakRssMb: round(floor.peakRssMb, 1),
    vsFloor: round(chargesPerSecond / floorChargesPerSecond, 3),
    events,
    seedSeconds: round(seedSeconds, 1),
  };
}

function printTable(results: Partial<Record<Dialect, Figures>>, declinePercent: number): void {
  const header = [
    'database',
    'invoices',
    'collected',
    'declined',
    'seconds',
    'charges/s',
    'CPU s',
    'peak RSS MB',
    'longest stall s',
    'floor s',
    'floor charges/s',
    'floor RSS MB',
    'vs floor',
  ];
  printResultsTable(
    `Collection of due card invoices through the test gateway (${declinePercent}% of cards decline), in a process of its own`,
    header,
    results,
    (database, f) => [
      [
        database,
        String(f.invoices),
        String(f.collected),
        String(f.declined),
        f.seconds.toFixed(2),
        f.chargesPerSecond.toFixed(1),
        f.cpuSeconds.toFixed(2),
        f.peakRssMb.toFixed(1),
        f.longestStallSeconds.toFixed(2),
        f.floorSeconds.toFixed(2),
        f.floorChargesPerSecond.toFixed(1),
        f.floorPeakRssMb.toFixed(1),
        `${(f.vsFloor * 100).toFixed(1)}%`,
      ],
    ],
  );
}

async function main(): Promise<number> {
  const count = Math.round(setting('BENCH_INVOICES', 10_000, 1, 1_000_000));
  const declinePercent = Math.round(setting('BENCH_DECLINE_PERCENT', 10, 0, 100));
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-collections-',
    ...freshDatabases(['collections']),
    bench: ({ dialect, targets }, tempDir) =>
      benchDialect(dialect, targets.collections, tempDir, count, declinePercent),
  });
  printTable(results, declinePercent);
  const targets = (Object.entries(results) as [Dialect, Figures][]).map(([dialect, f]) => ({
    metric: `${dialect}.vsFloor`,
    min: TARGET_VS_FLOOR,
    value: f.vsFloor,
    met: f.vsFloor >= TARGET_VS_FLOOR,
  }));
  console.log(
    `Targets: ${targets.map((t) => `${t.metric} >= ${t.min}: ${t.value.toFixed(3)} — ${t.met ? 'met' : 'NOT MET'}`).join('; ')}`,
  );
  const { RUN_DATE } = await import('./collections/population.ts');
  printJsonLine('billing-collections', {
    invoices: count,
    declinePercent,
    runDate: RUN_DATE,
    results,
    targets,
  });
  return process.env.BENCH_STRICT === '1' && !targets.every((t) => t.met) ? 1 : 0;
}

// A measured process (its input in BENCH_COLLECTIONS_CHILD), or the benchmark, which stops by itself: an hour is
// far beyond a run of the defaults on both databases.
await collectionProcesses.runEntryPoint({ measure: child, main, budgetSeconds: 3600 });
