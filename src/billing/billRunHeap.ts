import v8 from 'node:v8';
import { parseDatabaseUrl } from '../config.ts';
import { isPostgres } from '../storage/columns.ts';
import type { Db } from '../storage/database.ts';

/**
 * How much V8 lets its heap grow past what the last full collection found alive, in percent, in a process that
 * runs the bill run alone (`billing run`). NOTE: left to itself V8 grows the heap up to about four times the live
 * objects before it collects them, and a bill run makes garbage fast (rows read, invoices and events rendered, SQL
 * built), most of it living through a stretch's transaction long enough to reach the old generation: at 20,000
 * subscriptions the heap reached 175 MB to hold about 45 MB of live objects, and the process 333 MB. At 50 % it
 * reached 96 MB and the process 214 MB, for about 5 % more CPU (docs/benchmarks.md, "Bill run").
 */
export const BILL_RUN_HEAP_GROWING_PERCENT = 50;

/**
 * Keeps V8's young generation from growing past the size it has when `billing run` starts its work, for a process
 * that runs the bill run alone on SQLite: called before the service's modules are loaded, so it reads the database
 * setting itself. NOTE: V8 grows each of its two semi-spaces, up to 16 MB, while much of what it allocates survives
 * a scavenge; loading the modules takes them to the maximum (a young generation of 33.6 MB), and a bill run keeps
 * them there. Only the command line sets the maximum (`--max-semi-space-size`; set at run time it changes nothing),
 * but V8 reads the growth factor each time it grows the space, so a factor of 1 stops it where it is: 1 MB each in
 * `billing run` run from the bundle (4 MB each when it loaded dist/'s files one by one). It took the peak at 100,000
 * subscriptions from 189 to 148 MB, for about a third more CPU; on PostgreSQL, where memory has no target and the
 * run's rate does, V8 sizes it itself (docs/benchmarks.md, "Bill run").
 * NOTE: V8 raises the factor back to its least of 2 whenever it sets up a new isolate's heap (`Heap::ConfigureHeap`),
 * which every worker thread's start does: SQLite's checkpoint thread starts once the run has written a megabyte
 * (src/storage/sqliteCheckpoints.ts), and with the factor back at 2 the young generation grew to 33.6 MB again. So
 * the factor is set once more as each thread comes online.
 */
export function keepYoungGenerationSmall(env: NodeJS.ProcessEnv = process.env): void {
  if (isPostgresSetting(env)) return;
  const keep = (): void => v8.setFlagsFromString('--semi-space-growth-factor=1');
  keep();
  process.on('worker', (thread) => thread.once('online', keep));
}

/** Whether DATABASE_URL names PostgreSQL; a setting that cannot be read is reported as the storage opens. */
function isPostgresSetting(env: NodeJS.ProcessEnv): boolean {
  try {
    return parseDatabaseUrl(env.DATABASE_URL, '.').dialect === 'postgres';
  } catch {
    return false;
  }
}

/**
 * Bounds the growth of this process's heap for a bill run on SQLite (BILL_RUN_HEAP_GROWING_PERCENT). For a process
 * that does nothing else: the server's bill-run worker shares its process with requests, which keep V8's own sizing.
 * On PostgreSQL, whose stretches hold 250 subscriptions at once, the bound made the run collect more often for
 * 17–34 % more CPU (docs/benchmarks.md, "Bill run"), so V8 sizes the heap itself there.
 * NOTE: set while the process runs, the flag holds from the next full collection on (V8 reads it each time it
 * sizes the heap).
 */
export function boundHeapForBillRun(db: Db): void {
  if (isPostgres(db)) return;
  v8.setFlagsFromString(`--heap-growing-percent=${BILL_RUN_HEAP_GROWING_PERCENT}`);
}
