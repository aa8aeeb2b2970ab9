import { isPostgres } from './columns.ts';
import type { Db } from './database.ts';

/**
 * How many items a long job (the bill run's due subscriptions) puts into one transaction, by database.
 *
 * PostgreSQL: always `most`. NOTE: on SQLite a transaction holds the event loop from its first statement to its
 * commit (better-sqlite3 is synchronous; docs/architecture.md, "Storage"), so every request of the process waits for
 * it. Transactions there are sized to cost about SQLITE_TRANSACTION_MS of CPU, from what the last one cost per item
 * (between 1 and `most`); between them the loop turns and waiting requests are answered. CPU rather than wall time:
 * on a machine short of cores wall time grows with everything else's work, and transactions sized by it shrink until
 * their fixed costs dominate (the bill run made 2.7 times as much CPU so).
 */
export interface TransactionSizer {
  /**
   * Runs one transaction's work on `size` items, after letting waiting requests in (so that their CPU is not counted
   * as the transaction's), and learns from what it cost; `work` answers how many items it took.
   */
  run<T extends { items: number }>(work: (size: number) => Promise<T>): Promise<T & { size: number }>;
}

const SQLITE_TRANSACTION_MS = 20;
const FIRST_SQLITE_SIZE = 25;
/**
 * SQLite sizes of this many or more are a multiple of it. NOTE: a transaction's statements list its items by id, so
 * each new length is a new SQL text for SQLite to compile: sized to the item, nearly every transaction compiled all
 * of its statements anew (5,243 compilations for 20,000 subscriptions), a fifth of the run's CPU, and the compiled
 * statements kept in the cache held native memory.
 */
const SQLITE_SIZE_STEP = 25;

/** Each SQLite database's sizes, so that a run (each day of a test-clock advance) starts from what the last saw. */
const sqliteSizes = new WeakMap<object, { size: number }>();

export function transactionSizer(db: Db, most: number): TransactionSizer {
  if (isPostgres(db)) {
    return { run: async (work) => ({ ...(await work(most)), size: most }) };
  }
  // The root handle: a context may carry a transaction of it, which lives only as long as the transaction.
  const root = db.isTransaction ? undefined : db;
  const sizes = (root && sqliteSizes.get(root)) ?? { size: Math.min(FIRST_SQLITE_SIZE, most) };
  if (root) sqliteSizes.set(root, sizes);
  return {
    async run(work) {
      const size = sizes.size;
      await nextTurnOfTheEventLoop();
      const cpuBefore = process.cpuUsage();
      const done = await work(size);
      const cpu = process.cpuUsage(cpuBefore);
      sizes.size = nextSize(done.items, (cpu.user + cpu.system) / 1000, most) ?? size;
      return { ...done, size };
    },
  };
}

/** What fits SQLITE_TRANSACTION_MS, at most twice the last (one quick transaction cannot make the next a long one). */
function nextSize(items: number, ms: number, most: number): number | undefined {
  if (items === 0) return undefined;
  const fits = Math.floor((SQLITE_TRANSACTION_MS * items) / Math.max(ms, 1));
  const sized = Math.min(most, 2 * items, fits);
  return Math.max(1, sized < SQLITE_SIZE_STEP ? sized : sized - (sized % SQLITE_SIZE_STEP));
}

const nextTurnOfTheEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
