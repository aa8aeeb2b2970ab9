/**
 * What every benchmark shares: settings from the environment, logging, fresh databases (PostgreSQL schemas), the
 * driver that measures SQLite then PostgreSQL, medians, the output (the text table, the JSON line, statement counts),
 * the checks' list of problems, and the watchdog and clean-up of a run cut short. Light on purpose: the measured
 * processes (bench/measuredProcess.ts) import it, and what it loads counts in their peak RSS (no autocannon here; that
 * is bench/harness.ts).
 */
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import type { DatabaseTarget } from '../src/config.ts';
import { isPostgres } from '../src/storage/columns.ts';
import type { Db } from '../src/storage/database.ts';

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
/** BENCH_POSTGRES_ONLY=1 skips SQLite, so that a change to PostgreSQL's path is measured without its run. */
const POSTGRES_ONLY = process.env.BENCH_POSTGRES_ONLY === '1' && PG_URL !== undefined;

export type Dialect = 'sqlite' | 'postgres';

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Whether `settled` settles within `ms`. The timer is cleared once it does: a timer left pending would hold the
 * benchmark's process open after its last line, for the rest of its time (15 s after each server stopped).
 */
export async function settlesWithin(settled: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([settled.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

export const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** "SQLite" or "PostgreSQL", as the tables name them. */
export const dialectName = (dialect: Dialect) => (dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL');

/** The median of `values` (the mean of the middle two when they are even in number). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * A Markdown table under its title in bold, readable as it is on a terminal and copied as it is into
 * docs/benchmarks.md (bench/all.ts): the first column left-aligned, the others right-aligned.
 */
export function formatTable(title: string, header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;
  return ['', `**${title}**`, '', line(header), rule, ...rows.map(line), ''].join('\n');
}

/** The results table on stdout: `rows` gives a dialect's rows, `database` (its name) their first cell. */
export function printResultsTable<R>(
  title: string,
  header: string[],
  results: Partial<Record<Dialect, R>>,
  rows: (database: string, result: R) => string[][],
): void {
  const cells = (Object.entries(results) as [Dialect, R][]).flatMap(([dialect, result]) =>
    rows(dialectName(dialect), result),
  );
  console.log(formatTable(title, header, cells));
}

/** The run's JSON line, the last of stdout (for scripts): the benchmark, Node's version, the CPUs, then `fields`. */
export function printJsonLine(benchmark: string, fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ benchmark, node: process.version, cpus: os.cpus().length, ...fields }));
}

/** The machine's load averages over 1, 5 and 15 minutes, to 2 places: how busy it was while a benchmark ran. */
export function loadAverage(): number[] {
  return os.loadavg().map((l) => round(l, 2));
}

/** BENCH_STATEMENTS=1: `heading`, then the 40 most frequent statements of `bySql` (most frequent first), on stderr. */
export function logStatementCounts(heading: string, bySql: readonly [string, number][]): void {
  log(heading);
  for (const [text, count] of bySql.slice(0, 40)) {
    log(`  ${String(count).padStart(7)}  ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
  }
}

/**
 * A check's problems: `expect` (a figure against the expected one) and `problem` note them, the first `listed`
 * kept and the rest counted; `failIfAny` throws them all in one BenchError headed `heading`.
 */
export function problemList(listed = Number.POSITIVE_INFINITY) {
  const problems: string[] = [];
  let unlisted = 0;
  const problem = (text: string) => {
    if (problems.length < listed) problems.push(text);
    else unlisted += 1;
  };
  const expect = (what: string, actual: unknown, expected: unknown) => {
    if (actual !== expected) problem(`${what}: ${String(actual)}, expected ${String(expected)}`);
  };
  const failIfAny = (heading: string) => {
    if (problems.length === 0) return;
    const more = unlisted > 0 ? `\n  … and ${unlisted} more` : '';
    throw new BenchError(`${heading}:\n  ${problems.join('\n  ')}${more}`);
  };
  return { problem, expect, failIfAny };
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
 * The per-dialect driver: in a new temporary directory (`tempPrefix`…, removed at the end, also when the run fails), SQLite, then PostgreSQL when a
 * URL is set; for each, fresh databases (`sqlite`, `postgres`), `bench` on them, their cleanup, then `print` of what
 * it measured. Returns the results by dialect.
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
    const dialects: Array<() => Promise<D>> = [];
    if (!POSTGRES_ONLY) dialects.push(() => options.sqlite(tempDir));
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

/** Fresh databases reached as a `DatabaseTarget` each, by name (see `freshDatabases`). */
export interface TargetDatabases<N extends string> extends DialectDatabases {
  targets: Record<N, DatabaseTarget>;
}

/**
 * The `sqlite` and `postgres` of `forEachDialect` for benchmarks that open the databases themselves: one fresh
 * database per name, **SQLite** a file `<name>.sqlite` in the run's temporary directory, **PostgreSQL** a schema
 * `bench_<random>` for the first name and `bench_<random>_<name>` for the others (dropped by `cleanup`).
 */
export function freshDatabases<N extends string>(
  names: readonly [N, ...N[]],
): {
  sqlite: (tempDir: string) => Promise<TargetDatabases<N>>;
  postgres: (baseUrl: string) => Promise<TargetDatabases<N>>;
} {
  const byName = <T>(value: (name: N, i: number) => T) =>
    Object.fromEntries(names.map((name, i) => [name, value(name, i)])) as Record<N, T>;
  return {
    sqlite: async (tempDir) => ({
      dialect: 'sqlite',
      targets: byName((name) => ({ dialect: 'sqlite', file: path.join(tempDir, `${name}.sqlite`) })),
      cleanup: async () => {},
    }),
    postgres: async (baseUrl) => {
      const suffix = crypto.randomBytes(6).toString('hex');
      const schemas = names.map((name, i) => (i === 0 ? `bench_${suffix}` : `bench_${suffix}_${name}`));
      const { urls, drop } = await createSchemas(baseUrl, schemas);
      return {
        dialect: 'postgres',
        targets: byName((_name, i) => ({ dialect: 'postgres', url: urls[i]! })),
        cleanup: drop,
      };
    },
  };
}

/** BENCH_CPU_PROFILE_DIR: the `node` flags that write a V8 CPU profile of a measured process into it, or none. */
export function cpuProfileFlags(): string[] {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  return profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
}

/**
 * Statistics for a seeded PostgreSQL database, as autovacuum gives a database in service: of the tables the seeding
 * filled (without them the measured run would depend on when autovacuum comes by). NOTE: a table still empty is
 * left without. Analyzed empty, it is planned as empty for as long as a connection keeps the plan: the foreign-key
 * checks of every invoice line scanned the whole invoices table, and made the bill run and its floor on PostgreSQL
 * three and five times slower (docs/benchmarks.md, "Statistics of empty tables"). Never analyzed, it is planned as
 * ten pages at least, and looked up by its key.
 */
export async function analyzeSeeded(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  const { rows: tables } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
  for (const { name } of tables) {
    const filled = sql<{ filled: boolean }>`select exists (select 1 from ${sql.id(name)}) as filled`;
    const { rows } = await filled.execute(db);
    if (rows[0]?.filled) await sql`analyze ${sql.id(name)}`.execute(db);
  }
}
