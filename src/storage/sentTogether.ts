import { Transaction } from 'kysely';
import type { DatabaseConnection } from 'kysely';
import { isPostgres } from './columns.ts';
import type { Db } from './database.ts';

/** Each read of `sentTogether`, as the reads give them. */
type Results<R extends readonly ((db: Db) => Promise<unknown>)[]> = {
  -readonly [K in keyof R]: Awaited<ReturnType<R[K]>>;
};

/**
 * Runs statements that need nothing of each other's results (reads, a row lock with a read beside it, or writes of
 * different tables), each a function of the database it is given. In a PostgreSQL transaction they are sent on its connection one behind the
 * other without waiting for the answers (pg's pipeline mode, see openPostgres), so they cost one round trip
 * instead of one each: on PostgreSQL every statement is a round trip, and these cost the service most of a
 * payment's CPU (docs/benchmarks.md, "Payments"). PostgreSQL runs them in the order sent, in the transaction, as
 * if awaited one by one. Elsewhere (SQLite, whose statements run in the process; outside a transaction, where
 * they would each take a connection of the pool) they run one after the other, in order, as before.
 *
 * Each is a function that sends its statements at once: one that awaits a statement before sending the next
 * still works, its later statements just wait for their own round trip. When several fail, the error thrown is
 * the first one's in the order given, as when they ran one after the other; the others have finished by then.
 */
export async function sentTogether<R extends readonly ((db: Db) => Promise<unknown>)[]>(
  db: Db,
  ...reads: R
): Promise<Results<R>> {
  if (!db.isTransaction || !isPostgres(db) || reads.length < 2) {
    const results: unknown[] = [];
    for (const read of reads) results.push(await read(db));
    return results as Results<R>;
  }
  return db.getExecutor().provideConnection(async (connection) => {
    const shared = sharingConnection(db, connection);
    const settled = await Promise.allSettled(reads.map((read) => read(shared)));
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as Results<R>;
  });
}

/**
 * NOTE: the transaction `db` on its connection, without Kysely's turn-taking: Kysely sends a transaction's
 * statements one at a time (each waits for the one before to be answered), which is what `sentTogether` avoids.
 * Kysely offers no public way to build a transaction on a connection in hand, so this one is made from its props;
 * only its executor is used by queries. Its driver and dialect are never reached: a transaction refuses
 * `transaction()`, `connection()` and `destroy()`, and nothing here introspects the schema.
 */
function sharingConnection(db: Db, connection: DatabaseConnection): Db {
  const executor = db.getExecutor().withConnectionProvider({
    provideConnection: (consume) => consume(connection),
  });
  return new Transaction({
    config: { dialect: notReached },
    dialect: notReached,
    driver: notReached,
    executor,
  }) as unknown as Db;
}

const notReached = new Proxy({} as never, {
  get(_target, property) {
    throw new Error(`a transaction shared by reads sent together has no ${String(property)}`);
  },
});
