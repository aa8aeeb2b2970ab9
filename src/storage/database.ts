import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type Pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, sql } from 'kysely';
import type {
  DatabaseConnection,
  Driver,
  KyselyPlugin,
  LogEvent,
  SqliteDatabase,
  SqliteDialectConfig,
  SqliteStatement,
} from 'kysely';
import type { DatabaseTarget, PoolSettings } from '../config.ts';
import type { Database } from './schema.ts';
import { namedStatementClientClass } from './pgNamedStatements.ts';
import { loadPg } from './pgModule.ts';
import { BackgroundCheckpoints } from './sqliteCheckpoints.ts';
import { withTransactionEndHooks } from './transactionEnd.ts';

export type Db = Kysely<Database>;
export type Dialect = DatabaseTarget['dialect'];

export interface Storage {
  db: Db;
  dialect: Dialect;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * NOTE: better-sqlite3 binds only numbers, strings, bigints, buffers and null, so booleans become 1/0 here,
 * the one place where the dialects differ on the way in. Reading, mappers apply Boolean() to 0/1 and true/false alike.
 */
function sqliteParameter(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; preparing costs more than running a small query, so statements are kept by
 * their SQL text (the least recently used is dropped past STATEMENT_CACHE_SIZE).
 */
function withSqliteParameters(database: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const bind = (parameters: ReadonlyArray<unknown>) => parameters.map(sqliteParameter);
  return {
    close: () => database.close(),
    prepare(text: string): SqliteStatement {
      let statement = statements.get(text);
      if (statement) {
        statements.delete(text);
      } else {
        statement = database.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(text, statement);
      const prepared = statement;
      return {
        reader: prepared.reader,
        all: (parameters) => prepared.all(bind(parameters)),
        run: (parameters) => prepared.run(bind(parameters)),
        iterate: (parameters) => prepared.iterate(bind(parameters)),
      };
    },
  };
}

/** Reads that need no transaction may bypass Kysely's driver on SQLite; see `preparedQuery`. */
export interface DirectReader {
  all(sql: string, parameters: readonly unknown[]): unknown[];
  /**
   * SQLite's `PRAGMA data_version` on the writing connection: it moves when another connection (another
   * process's, or another service's in this one) has committed since it was last asked, never with this
   * connection's own commits. Asked between statements, of a transaction too: one begun IMMEDIATE holds the
   * database's write lock, so no other connection commits meanwhile.
   */
  othersCommitted(): number;
}
const directReaders = new WeakMap<Db, DirectReader>();

/** The direct reader of a root database handle; none inside a transaction or on PostgreSQL. */
export function directReaderOf(db: Db): DirectReader | undefined {
  return db.isTransaction ? undefined : directReaders.get(db);
}

function openConnection(file: string, options: BetterSqlite3.Options = {}): BetterSqlite3.Database {
  const database = new BetterSqlite3(file, options);
  database.pragma('foreign_keys = ON');
  // Several processes may share the file (CLI beside the server): wait for a lock rather than fail.
  database.pragma('busy_timeout = 5000');
  return database;
}

export interface StorageOptions {
  /**
   * Called with the SQL of every statement run (tests count statements with it), and how long it took, except for
   * the reads run on SQLite's read connection (benchmarks time statements with it).
   */
  onQuery?: (sql: string, durationMs?: number) => void;
  /** Kysely plugins every statement passes through (a test holds one statement's answer to stage a race). */
  plugins?: KyselyPlugin[];
}

function kyselyLog(options: StorageOptions) {
  const onQuery = options.onQuery;
  if (!onQuery) return undefined;
  return (event: LogEvent) => {
    if (event.level === 'query') onQuery(event.query.sql, event.queryDurationMillis);
  };
}

/**
 * The database holds every account's data and keys: its directory, when we create it, is the owner's alone
 * (0700), and so is the file (0600). SQLite gives its -wal and -shm files the database file's mode.
 */
function createPrivately(file: string): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  try {
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    fs.chmodSync(file, 0o600);
  } catch (error) {
    // A file this user may read but not write (or not chmod: another user's): a deployment mistake to name
    // plainly, not a raw system error. (The service must write it anyway, so the check loses nothing.)
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    throw new Error(
      `cannot open the database file ${file} for writing (${code}): give the service's user write access to it, or its ownership`,
    );
  }
}

/**
 * How long work may hold the event loop, statement after statement, before it lets the loop turn (see
 * `yieldWhenHeldTooLong`).
 */
const HOLD_BUDGET_MS = 10;

/**
 * NOTE: better-sqlite3 runs each statement synchronously and Kysely's hops between statements are microtasks, so
 * work that runs statement after statement (a bill run, a test-clock advance, a batch build) would hold the event
 * loop until it ends: no request is even read meanwhile (another account's GET waited 7 s behind a test-clock
 * advance; docs/benchmarks.md, "No freezing"). So before taking the connection, for a statement outside a
 * transaction or to begin one, work that has held the loop for HOLD_BUDGET_MS lets it turn once: requests that
 * arrived meanwhile are read and answered, then the work goes on. A transaction is never cut: its statements run
 * back to back, so work that must not freeze keeps its transactions short.
 */
function loopTurns(): () => Promise<void> {
  let heldSince: number | undefined;
  const turned = () => {
    heldSince = undefined;
  };
  return async function yieldWhenHeldTooLong() {
    if (heldSince === undefined) {
      // The first statement since the loop last turned: the turn's start, until the next turn clears it.
      heldSince = performance.now();
      setImmediate(turned);
      return;
    }
    if (performance.now() - heldSince < HOLD_BUDGET_MS) return;
    await afterTheLoopPolled();
  };
}

/**
 * Resolves once the event loop has polled for I/O. NOTE: an immediate queued while the loop handles I/O (a request
 * just read) runs in the same turn, before the loop polls again: work let go that way went on before any request
 * that arrived meanwhile was read, and on SQLite a turn of the loop under usage ingestion held two folds where one
 * was meant, and another account's read waited for both (docs/benchmarks.md, "Usage"). Queued again from the check
 * phase, it runs after the next poll whatever the phase it was first queued from.
 */
function afterTheLoopPolled(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Transactions (by their connection) whose statements may let the loop turn between them: `letLoopTurnInside`. */
const loopTurningTransactions = new WeakSet<DatabaseConnection>();

/**
 * Lets the event loop turn between the statements of the transaction `db`, as between statements outside one, for
 * the rest of it. NOTE: for a transaction that must be large because it is all or nothing (a batch build: 500
 * invoices and their events; docs/architecture.md, "Storage"); on SQLite it would otherwise hold the loop from its
 * first statement to its commit. While the loop turns, the rest of the process reads on the read connection what was
 * committed before it, and whatever needs the write connection waits for its commit, as it would anyway. Does
 * nothing on PostgreSQL, whose statements never hold the loop, nor outside a transaction.
 */
export async function letLoopTurnInside(db: Db): Promise<void> {
  if (!db.isTransaction) return;
  await db.getExecutor().provideConnection(async (connection) => {
    loopTurningTransactions.add(connection);
  });
}

/** The SQLite connection, letting the loop turn before each statement of a transaction that allows it. */
function loopTurningConnection(
  connection: DatabaseConnection,
  yieldWhenHeldTooLong: () => Promise<void>,
): DatabaseConnection {
  const turning: DatabaseConnection = {
    async executeQuery(query) {
      if (loopTurningTransactions.has(turning)) await yieldWhenHeldTooLong();
      return connection.executeQuery(query);
    },
    streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
  };
  return turning;
}

/**
 * SQLite's dialect with transactions that take the write lock when they begin (BEGIN IMMEDIATE). NOTE: a deferred
 * transaction takes it at its first write, and one that has read by then cannot wait for it: when another
 * process (the CLI beside the server) committed meanwhile, the write fails at once with SQLITE_BUSY_SNAPSHOT,
 * whatever the busy timeout. Begun IMMEDIATE, a transaction waits for the lock (busy_timeout) before its first
 * read, and then reads the latest data. Every transaction here writes, or reads what it is about to write. Its
 * driver also lets the event loop turn between statements of long work (`loopTurns`).
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #afterCommit: () => void;

  constructor(config: SqliteDialectConfig, afterCommit: () => void) {
    super(config);
    this.#config = config;
    this.#afterCommit = afterCommit;
  }

  override createDriver(): Driver {
    const yieldWhenHeldTooLong = loopTurns();
    const afterCommit = this.#afterCommit;
    return new (class extends SqliteDriver {
      // One connection: always handed out in the same wrapper, which names its transaction.
      #turning: DatabaseConnection | undefined;

      override async acquireConnection(): Promise<DatabaseConnection> {
        await yieldWhenHeldTooLong();
        const connection = await super.acquireConnection();
        this.#turning ??= loopTurningConnection(connection, yieldWhenHeldTooLong);
        return this.#turning;
      }

      override async beginTransaction(connection: DatabaseConnection): Promise<void> {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      }

      override async commitTransaction(connection: DatabaseConnection): Promise<void> {
        loopTurningTransactions.delete(connection);
        await super.commitTransaction(connection);
        afterCommit();
      }

      override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
        loopTurningTransactions.delete(connection);
        await super.rollbackTransaction(connection);
      }
    })(this.#config);
  }
}

function openSqlite(file: string, options: StorageOptions): Storage {
  createPrivately(file);
  const database = openConnection(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  const checkpoints = new BackgroundCheckpoints(path.resolve(file));
  const db = new Kysely<Database>({
    dialect: withTransactionEndHooks(
      new ImmediateSqliteDialect({ database: withSqliteParameters(database) }, () =>
        checkpoints.afterCommit(),
      ),
    ),
    log: kyselyLog(options),
    plugins: options.plugins,
  });

  // NOTE: Kysely runs SQLite queries one at a time on its connection, behind a mutex and several promise hops,
  // and a read there would see another request's open transaction. A second, read-only connection (WAL lets it
  // read beside the writer) serves the hottest single reads synchronously, seeing only committed data.
  const reader = openConnection(file, { readonly: true });
  const readerStatements = withSqliteParameters(reader);
  const dataVersion = database.prepare('pragma data_version').pluck();
  directReaders.set(db, {
    all: (text, parameters) => {
      options.onQuery?.(text);
      return readerStatements.prepare(text).all(parameters) as unknown[];
    },
    othersCommitted: () => {
      options.onQuery?.(dataVersion.source);
      return dataVersion.get() as number;
    },
  });

  return {
    db,
    dialect: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      await checkpoints.close();
      reader.close();
      await db.destroy();
    },
  };
}

const PG_INT8 = 20;
const PG_DATE = 1082;
const PG_TIMESTAMPTZ = 1184;

/** Identifiers and minor-unit amounts are bigint columns; they stay within 2^53 and are read as numbers. */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} is beyond the safe integer range`);
  return value;
}

// Both dialects hand instants back as ISO 8601 strings in UTC and calendar dates as YYYY-MM-DD.
function pgTypes(pg: typeof Pg): Pg.CustomTypesConfig {
  const parseTimestamptz = pg.types.getTypeParser(PG_TIMESTAMPTZ);
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === PG_INT8) return parseInt8;
      if (oid === PG_DATE) return (text: string) => text;
      if (oid === PG_TIMESTAMPTZ) return (text: string) => (parseTimestamptz(text) as Date).toISOString();
      return pg.types.getTypeParser(oid, format);
    },
  } as Pg.CustomTypesConfig;
}

/** The pool's defaults (docs/operations.md, "Fairness under load"). */
export const DEFAULT_POOL: PoolSettings = { size: 10, acquireTimeoutMs: 0 };

/**
 * No connection came free within the pool's acquire timeout (or a new one could not be opened within it): the
 * statement never ran, so the request is answered 503 and may be sent again.
 */
export class PoolTimeoutError extends Error {
  readonly code = 'POOL_ACQUIRE_TIMEOUT';
}

// NOTE: pg-pool gives its timeouts no code; these are its messages (pg-pool 3, pg 8).
const POOL_TIMEOUT_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
];

function openPostgres(url: string, settings: PoolSettings, options: StorageOptions): Storage {
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.size,
    // When set, a request waits this long for a connection, then is answered 503 (0: no limit, pg's own default).
    connectionTimeoutMillis: settings.acquireTimeoutMs,
    types: pgTypes(pg),
    Client: namedStatementClientClass(),
    // Statements given to one client before the one ahead is answered go out at once instead of waiting their
    // turn: what `sentTogether` (sentTogether.ts) sends together costs one round trip. A client given one statement
    // at a time, as Kysely does, works as without it.
    pipeline: true,
    // Which process holds which connections, in pg_stat_activity (an application_name in the URL wins).
    application_name: `billing-${process.pid}`,
  });
  // An idle client that loses its server emits 'error' on the pool; without a listener that would crash the process.
  pool.on('error', () => {});
  const connect = async () => {
    try {
      return await pool.connect();
    } catch (error) {
      if (error instanceof Error && POOL_TIMEOUT_MESSAGES.includes(error.message))
        throw new PoolTimeoutError(`no database connection came free within ${settings.acquireTimeoutMs} ms`);
      throw error;
    }
  };
  const db = new Kysely<Database>({
    dialect: withTransactionEndHooks(new PostgresDialect({ pool: { connect, end: () => pool.end() } })),
    log: kyselyLog(options),
    plugins: options.plugins,
  });
  return {
    db,
    dialect: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

export function openStorage(target: DatabaseTarget, options: StorageOptions = {}): Storage {
  return target.dialect === 'sqlite'
    ? openSqlite(target.file, options)
    : openPostgres(target.url, target.pool ?? DEFAULT_POOL, options);
}

/** A write refused by a unique index: SQLite's SQLITE_CONSTRAINT_UNIQUE or PostgreSQL's 23505. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * A transaction PostgreSQL aborted to break a deadlock (40P01) or a serialization conflict (40001), or one SQLite
 * could not get its lock for within the busy timeout: nothing was written, and the same request may be sent again.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001' || code === 'SQLITE_BUSY';
}

/**
 * A lock a money movement waited for longer than its `lock_timeout` (PostgreSQL 55P03, lock_not_available): another
 * process holds it. The transaction was rolled back whole.
 */
export function isLockTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '55P03';
}

/**
 * PostgreSQL refused a new connection (53300, too_many_connections: `max_connections`, or a role's or database's
 * `CONNECTION LIMIT`): the statement never ran on it. Load, not the request.
 */
export function isTooManyConnections(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '53300';
}

/**
 * The connections a PostgreSQL server can still open for clients: `max_connections` less the superusers' reserve
 * and the client connections open now (this one excluded, as it closes here).
 */
export async function freePostgresConnections(url: string): Promise<number> {
  const client = new (loadPg().Client)({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ free: number }>(
      `select current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
              - (select count(*) from pg_stat_activity where backend_type = 'client backend')::int + 1 as free`,
    );
    return rows[0]!.free;
  } finally {
    await client.end();
  }
}

/** A write refused by a foreign key: what it refers to was deleted meanwhile (SQLite, PostgreSQL 23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}
