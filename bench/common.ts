/**
 * What every benchmark shares (bench/run.ts, bench/payments.ts, bench/billRun.ts): settings from the environment,
 * logging, fresh PostgreSQL schemas, the driver that measures SQLite then PostgreSQL, the text table, and the
 * watchdog and clean-up of a run cut short. Light on purpose: the bill run's measured process imports it, and what
 * it loads counts in that process's peak RSS (no autocannon here; that is bench/harness.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A failure the benchmark explains itself: printed without a stack, exit status 1. */
export class BenchError extends Error {}

/** A numeric setting from the environment; out of range stops the run at once with status 2. */
export function setting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    process.stderr.write(`[bench] ${name} must be a number from ${min} to ${max}; got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}

/** The PostgreSQL URL to measure, when one is set. */
export const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;

export type Dialect = 'sqlite' | 'postgres';

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const round = (value: number, digits: number) => Number(value.toFixed(digits));

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** A text table: the first column left-aligned, the others right-aligned. */
export function formatTable(title: string, header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return ['', title, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), ''].join(
    '\n',
  );
}

// ---------------------------------------------------------------------------------------------------------------
// What a cut-short run must clean up

/** The resources of the run in progress, for `abandon` (watchdog, signals). */
export const active: { child?: ChildProcess; tempDir?: string; schemas: string[] } = { schemas: [] };

/** Last-resort cleanup when the run is cut short: the child process, the temporary files; schemas are only named. */
export function abandon(): void {
  active.child?.kill('SIGKILL');
  if (active.tempDir) rmSync(active.tempDir, { recursive: true, force: true });
  for (const schema of active.schemas)
    log(`PostgreSQL schema ${schema} is left behind: drop schema "${schema}" cascade`);
}

/**
 * Runs a benchmark's main function under a watchdog (aborted past `budgetMs`) and Ctrl-C handling, and sets the
 * exit status: main's result, 1 on a failure (a BenchError is printed without its stack).
 */
export async function runBenchmark(main: () => Promise<number>, budgetMs: number): Promise<void> {
  const watchdog = setTimeout(() => {
    log(`aborting: the run exceeded its ${Math.round(budgetMs / 1000)} s budget`);
    abandon();
    process.exit(1);
  }, budgetMs);
  watchdog.unref();

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      abandon();
      process.exit(130);
    });
  }

  try {
    process.exitCode = await main();
  } catch (error) {
    if (error instanceof BenchError) log(`FAILED: ${error.message}`);
    else log(`FAILED: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Fresh databases, one dialect after the other

/** Fresh PostgreSQL schemas on `baseUrl`: the URL reaching each (`options=-c search_path=…`), and their drop. */
export async function createSchemas(
  baseUrl: string,
  schemas: string[],
): Promise<{ urls: string[]; drop(): Promise<void> }> {
  const names = `schema${schemas.length === 1 ? '' : 's'} ${schemas.join(', ')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
    for (const schema of schemas) {
      await admin.query(`create schema "${schema}"`);
      active.schemas.push(schema);
    }
  } catch (error) {
    await admin.end().catch(() => {});
    throw new BenchError(`could not create ${names} on ${redact(baseUrl)}: ${(error as Error).message}`);
  }
  const urlFor = (schema: string) => {
    const url = new URL(baseUrl);
    const existing = url.searchParams.get('options');
    url.searchParams.set('options', `${existing ? `${existing} ` : ''}-c search_path=${schema}`);
    return url.toString();
  };
  log(`PostgreSQL: ${names} on ${redact(baseUrl)}`);
  return {
    urls: schemas.map(urlFor),
    drop: async () => {
      try {
        for (const schema of schemas) await admin.query(`drop schema if exists "${schema}" cascade`);
        active.schemas = active.schemas.filter((schema) => !schemas.includes(schema));
        log(`PostgreSQL: ${names} dropped`);
      } catch (error) {
        log(`PostgreSQL: could not drop ${names}: ${(error as Error).message}`);
      } finally {
        await admin.end().catch(() => {});
      }
    },
  };
}

/** The database (or databases) a benchmark measures one dialect in, and how to remove them. */
export interface DialectDatabases {
  dialect: Dialect;
  cleanup(): Promise<void>;
}

/**
 * The per-dialect driver: in a new temporary directory (`tempPrefix`…, removed at the end, also when the run fails),
 * SQLite, then PostgreSQL when a URL is set; for each, fresh databases (`sqlite`, `postgres`), `bench` on them, their
 * cleanup, then `print` of what it measured. Returns the results by dialect.
 */
export async function forEachDialect<D extends DialectDatabases, R>(options: {
  tempPrefix: string;
  sqlite: (tempDir: string) => Promise<D>;
  postgres: (baseUrl: string) => Promise<D>;
  bench: (databases: D, tempDir: string) => Promise<R>;
  print?: (dialect: Dialect, result: R) => void;
}): Promise<Partial<Record<Dialect, R>>> {
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), options.tempPrefix));
  active.tempDir = tempDir;
  const results: Partial<Record<Dialect, R>> = {};
  try {
    const dialects: Array<() => Promise<D>> = [() => options.sqlite(tempDir)];
    const pgUrl = PG_URL;
    if (pgUrl) dialects.push(() => options.postgres(pgUrl));
    else log('PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to include it');
    for (const prepare of dialects) {
      const databases = await prepare();
      let result: R;
      try {
        result = await options.bench(databases, tempDir);
      } finally {
        await databases.cleanup();
      }
      results[databases.dialect] = result;
      options.print?.(databases.dialect, result);
    }
  } finally {
    await fs.rm(tempDir, { recursive: true, force: true });
    active.tempDir = undefined;
  }
  return results;
}
