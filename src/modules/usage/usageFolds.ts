import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';

/** How an account's usage calls share transactions: the sizes src/flows/recordUsage.ts folds them by. */

/**
 * The most events one transaction records for the calls it takes together. SQLite: a batch's worth, since its
 * transaction holds the event loop from its first statement to its commit and every other request waits for it
 * (under ingestion another account's GET p99 was 122-135 ms with 200, 41-91 ms with 100, for 10-30 % fewer
 * events a second; docs/benchmarks.md, "Usage"); single events sent by many calls still share a transaction.
 * PostgreSQL's statements never hold the loop: five batches.
 */
export function foldedEvents(db: Db): number {
  return isPostgres(db) ? 500 : 100;
}

/**
 * How many of an account's folds may run at once in a process. SQLite has one writer: one. PostgreSQL: two, so that
 * one fold's statements run while the other's are checked and built on the event loop, or wait for their commit
 * (docs/design/usage.md, "Speed (bench:usage)"); more measured no faster, and would hold more of the pool's
 * connections for one account.
 */
export function usageLanes(db: Db): number {
  return isPostgres(db) ? 2 : 1;
}
