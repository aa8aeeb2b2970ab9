/**
 * Reminder benchmark: BENCH_INVOICES unpaid EFT invoices of as many customers, each past due by a day of the
 * reminder schedule, reminded by one day's pass (`sendDueReminders`, as the bill run calls it: docs/gateways.md,
 * "The collection loop") in a process of its own (reminders per second, CPU, peak RSS), beside a floor of the same
 * e-mails queued bare by the mail module in the same kind of process; what the pass did is checked before any figure.
 *
 *   npm run bench:reminders                    SQLite only (a fresh temporary file)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:reminders   SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Settings (environment): BENCH_INVOICES (default 10000), BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL).
 * See bench/README.md.
 */
import os from 'node:os';
import type { DatabaseTarget } from '../src/config.ts';
import { child, reminderProcesses, runChild } from './reminders/child.ts';
import type { ChildInput, ChildResult } from './reminders/child.ts';
import {
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
import { AGAIN_AT, FLOOR_AT, REMIND_AT, REMIND_DATE } from './reminders/shared.ts';

// NOTE: the measured processes load this file. What only the parent needs (the service, to seed through its API;
// the checks) is imported inside `benchDialect`: all they load counts in those processes' peak RSS.

interface Figures {
  invoices: number;
  reminders: number;
  /** E-mails the pass queued: one per recipient of each reminder. */
  mails: number;
  seconds: number;
  remindersPerSecond: number;
  cpuSeconds: number;
  cpuMsPerReminder: number;
  peakRssMb: number;
  rssBeforeMb: number;
  /** The longest the pass's process went without running a timer (a server doing it would not answer). */
  longestStallSeconds: number;
  /** The same day's pass again, which finds nothing to send. */
  secondPassSeconds: number;
  floorSeconds: number;
  floorMailsPerSecond: number;
  floorCpuSeconds: number;
  floorPeakRssMb: number;
  /** The floor's seconds over the pass's: the share of bare queueing's speed the pass keeps. */
  vsFloor: number;
  /** The floor's CPU over the pass's: steadier than `vsFloor` on a busy machine. */
  cpuVsFloor: number;
  /** BENCH_STATEMENTS=1 only. */
  statementsPerReminder?: number;
  seedSeconds: number;
}

function logStatements(dialect: Dialect, mode: string, result: ChildResult, per: number): void {
  if (result.statements === undefined || !result.statementCounts) return;
  logStatementCounts(
    `${dialect} ${mode}: ${result.statements} statements, ${(result.statements / Math.max(per, 1)).toFixed(1)} a reminder:`,
    result.statementCounts,
  );
}

async function benchDialect(
  dialect: Dialect,
  target: DatabaseTarget,
  tempDir: string,
  count: number,
): Promise<Figures> {
  const { seed } = await import('./reminders/population.ts');
  const { verify, verifyFloor, verifyWords } = await import('./reminders/checks.ts');
  const { openStorage } = await import('../src/storage/database.ts');
  const { createSecretBox } = await import('../src/security/secretBox.ts');

  log(`${dialect}: seeding ${count} customers with an unpaid EFT invoice past due, through the API`);
  const seedStarted = performance.now();
  const seeded = await seed(target, tempDir, count);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`${dialect}: seeded in ${seedSeconds.toFixed(1)} s`);

  const input = (mode: ChildInput['mode'], at: string): ChildInput => ({
    mode,
    target,
    accountId: seeded.accountId,
    at,
    encryptionKey: seeded.encryptionKey,
  });
  log(`${dialect}: the day's reminder pass`);
  const run = await runChild(input('remind', REMIND_AT));
  logStatements(dialect, 'reminder pass', run, run.done);
  log(`${dialect}: the pass took ${run.seconds.toFixed(1)} s; the same day's pass again`);
  const again = await runChild(input('again', AGAIN_AT));
  log(`${dialect}: the second pass took ${again.seconds.toFixed(2)} s; checking them`);

  const storage = openStorage(target);
  let mails: number;
  try {
    mails = await verify(storage.db, seeded, { first: run.done, second: again.done });
    const secrets = createSecretBox(Buffer.from(seeded.encryptionKey, 'base64'));
    await verifyWords(storage.db, seeded, (sealed) => secrets.open(sealed));
  } finally {
    await storage.close();
  }
  log(`${dialect}: measuring the floor (${mails} e-mails queued bare)`);
  const floor = await runChild(input('floor', FLOOR_AT));
  logStatements(dialect, 'floor', floor, run.done);
  const floorStorage = openStorage(target);
  try {
    await verifyFloor(floorStorage.db, seeded.accountId, mails, floor.done);
  } finally {
    await floorStorage.close();
  }

  const reminders = run.done;
  return {
    invoices: count,
    reminders,
    mails,
    seconds: round(run.seconds, 2),
    remindersPerSecond: round(reminders / run.seconds, 1),
    cpuSeconds: round(run.cpuSeconds, 2),
    cpuMsPerReminder: round((run.cpuSeconds * 1000) / reminders, 3),
    peakRssMb: round(run.peakRssMb, 1),
    rssBeforeMb: round(run.rssBeforeMb, 1),
    longestStallSeconds: round(run.longestStallMs / 1000, 2),
    secondPassSeconds: round(again.seconds, 2),
    floorSeconds: round(floor.seconds, 2),
    floorMailsPerSecond: round(floor.done / floor.seconds, 1),
    floorCpuSeconds: round(floor.cpuSeconds, 2),
    floorPeakRssMb: round(floor.peakRssMb, 1),
    vsFloor: round(floor.seconds / run.seconds, 3),
    cpuVsFloor: round(floor.cpuSeconds / run.cpuSeconds, 3),
    ...(run.statements === undefined ? {} : { statementsPerReminder: round(run.statements / reminders, 1) }),
    seedSeconds: round(seedSeconds, 1),
  };
}

function printTable(results: Partial<Record<Dialect, Figures>>): void {
  const header = [
    'database',
    'reminders',
    'e-mails',
    'seconds',
    'reminders/s',
    'CPU ms/reminder',
    'peak RSS MB',
    'longest stall s',
    'again s',
    'floor s',
    'floor e-mails/s',
    'floor RSS MB',
    'vs floor',
    'CPU vs floor',
  ];
  printResultsTable(
    "One day's reminder pass over unpaid EFT invoices past due, in a process of its own",
    header,
    results,
    (database, f) => [
      [
        database,
        String(f.reminders),
        String(f.mails),
        f.seconds.toFixed(2),
        f.remindersPerSecond.toFixed(1),
        f.cpuMsPerReminder.toFixed(3),
        f.peakRssMb.toFixed(1),
        f.longestStallSeconds.toFixed(2),
        f.secondPassSeconds.toFixed(2),
        f.floorSeconds.toFixed(2),
        f.floorMailsPerSecond.toFixed(1),
        f.floorPeakRssMb.toFixed(1),
        `${(f.vsFloor * 100).toFixed(1)}%`,
        `${(f.cpuVsFloor * 100).toFixed(1)}%`,
      ],
    ],
  );
}

async function main(): Promise<number> {
  const count = Math.round(setting('BENCH_INVOICES', 10_000, 1, 1_000_000));
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-reminders-',
    ...freshDatabases(['reminders']),
    bench: ({ dialect, targets }, tempDir) => benchDialect(dialect, targets.reminders, tempDir, count),
  });
  printTable(results);
  printJsonLine('billing-reminders', {
    invoices: count,
    runDate: REMIND_DATE,
    results,
    loadAverage: os.loadavg().map((value) => round(value, 2)),
  });
  return 0;
}

// A measured process (its input in BENCH_REMINDERS_CHILD), or the benchmark, which stops by itself: an hour is far
// beyond a run of the defaults on both databases.
await reminderProcesses.runEntryPoint({ measure: child, main, budgetSeconds: 3600 });
