import type { DatabaseConnection, Dialect, Driver, Kysely } from 'kysely';

/**
 * What a transaction asks to be done once it has ended, by the connection it runs on: told whether it committed.
 * Kysely runs one transaction at a time on a connection, so the connection names the transaction.
 */
const endHooks = new WeakMap<DatabaseConnection, ((committed: boolean) => void)[]>();

function runHooks(connection: DatabaseConnection, committed: boolean): void {
  const hooks = endHooks.get(connection);
  endHooks.delete(connection);
  for (const hook of hooks ?? []) {
    // A hook must not fail the transaction's end (a committed one would be rolled back): its error is reported.
    try {
      hook(committed);
    } catch (error) {
      process.emitWarning(error as Error);
    }
  }
}

/**
 * The dialect with a driver that runs the hooks of `whenTransactionEnds` after COMMIT succeeded (committed) or after
 * a ROLLBACK (not). Every other call goes to the dialect's own driver unchanged.
 */
export function withTransactionEndHooks(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver(): Driver {
      const driver = dialect.createDriver();
      const hooked: Driver = {
        init: () => driver.init(),
        acquireConnection: () => driver.acquireConnection(),
        beginTransaction: (connection, settings) => {
          endHooks.set(connection, []);
          return driver.beginTransaction(connection, settings);
        },
        async commitTransaction(connection) {
          await driver.commitTransaction(connection);
          runHooks(connection, true);
        },
        async rollbackTransaction(connection) {
          try {
            await driver.rollbackTransaction(connection);
          } finally {
            runHooks(connection, false);
          }
        },
        releaseConnection: (connection) => driver.releaseConnection(connection),
        destroy: () => driver.destroy(),
      };
      if (driver.savepoint) hooked.savepoint = driver.savepoint.bind(driver);
      if (driver.rollbackToSavepoint) hooked.rollbackToSavepoint = driver.rollbackToSavepoint.bind(driver);
      if (driver.releaseSavepoint) hooked.releaseSavepoint = driver.releaseSavepoint.bind(driver);
      return hooked;
    },
  };
}

/**
 * Asks for `hook` to be called once the transaction `db` has ended, with whether it committed: work that must
 * follow a commit and never precede it (handing committed rows to a worker of this process). False, and nothing
 * asked, when `db` is not a transaction of a database opened by openStorage.
 */
export async function whenTransactionEnds(
  db: Pick<Kysely<object>, 'isTransaction' | 'getExecutor'>,
  hook: (committed: boolean) => void,
): Promise<boolean> {
  if (!db.isTransaction) return false;
  let registered = false;
  await db.getExecutor().provideConnection(async (connection) => {
    const hooks = endHooks.get(connection);
    if (!hooks) return;
    hooks.push(hook);
    registered = true;
  });
  return registered;
}
