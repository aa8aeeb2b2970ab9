import type Pg from 'pg';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { DatabaseTarget } from '../../config.ts';
import type { MemoryPart, ServiceMemory } from '../../context.ts';
import { isPostgres } from '../../storage/columns.ts';
import { directReaderOf } from '../../storage/database.ts';
import type { Db } from '../../storage/database.ts';
import { loadPg } from '../../storage/pgModule.ts';
import { whenTransactionEnds } from '../../storage/transactionEnd.ts';

/**
 * Authenticated requests find their key's account in the process instead of reading it from the database
 * (docs/architecture.md, "How a request flows"). What makes that safe is how entries go:
 *
 * - Every write that changes what a lookup returns (a key revoked; the account's settings, portal epoch or test
 *   clock) calls `credentialsChanged` in its transaction: its service's cache is emptied once it commits.
 * - On SQLite, before every lookup the writing connection is asked whether another process has committed anything
 *   since the last one (`PRAGMA data_version`, a counter in the database's shared memory that other connections
 *   move when they commit, not this one). If one has, the read connection reads `credentials_version`, which
 *   triggers move with every update or deletion of an account or a key, by any process (migration 0081), and the
 *   cache is emptied if it moved. A key revoked by any process is refused by the next request that begins after
 *   its commit, as when nothing was kept, while the process's own payments or usage, or another process's, leave
 *   its lookups kept (docs/benchmarks.md, "Key lookups kept on SQLite").
 * - On PostgreSQL `credentialsChanged` also sends `pg_notify`, and every other process empties its cache when the
 *   notification arrives (PostgreSQL sends it at the commit; docs/benchmarks.md, "Revocation delay", measures how
 *   long that takes). A process caches only while its listening connection is up: when it breaks, the cache is
 *   emptied and bypassed until a new connection listens again (notifications sent meanwhile are lost). A
 *   connection dropped silently (a firewall forgetting it) is noticed by a query every HEARTBEAT_MS that must
 *   answer within HEARTBEAT_MS, and TCP keep-alive; whatever still slips through, an entry is trusted for
 *   MAX_AGE_MS at most.
 * - A lookup that started before an emptying does not store what it read (a generation count), since it may have
 *   read the row as it was before the change.
 * - On PostgreSQL a row the caller says must be read each time (a test account's, whose clock a request in another
 *   process may have moved a moment ago) is never stored: a notification arrives after the commit, so another
 *   process could answer a request on the old row between the mover's answer and the notification
 *   (docs/architecture.md, "Two clocks"). On SQLite the clock's move moves the credentials' version, read before
 *   every lookup, so there it is kept.
 *
 * Only keys found are cached (a guesser's keys are not), up to MAX_ENTRIES, the oldest going first. The cache is
 * its service's (KEPT_CREDENTIALS, in ServiceMemory): another service in the process, on the same database or
 * another, hears of this one's changes as another process would.
 */
const CHANNEL = 'billing_credentials';
const MAX_ENTRIES = 10_000;
/** How long a process waits before listening again after its connection broke. */
const RECONNECT_MS = 1_000;
/** How often the listening connection is asked a question, and how long it has to answer. */
const HEARTBEAT_MS = 15_000;
/** The most an entry is trusted for, whatever the listener heard. */
const MAX_AGE_MS = 60_000;

/** SQLite: other processes' commits (a counter that moves with each) and the credentials' version (migration 0081). */
interface SqliteVersions {
  othersCommitted(): number;
  credentials(): number;
}

/** Says whether a row found must be read again by every lookup wherever changes are heard late. */
export type ReadEachTime<Row> = (row: Row) => boolean;

class CredentialsCache<Row> {
  #entries = new Map<string, { row: Row; storedAt: number }>();
  #generation = 0;
  /**
   * SQLite: how to learn of other processes' commits and of the credentials' version. Without it (PostgreSQL)
   * other processes' changes are heard late, by notification.
   */
  #versions: SqliteVersions | undefined;
  /** The other processes' commits last seen, and the credentials' version the entries were read at. */
  #othersCommitted: number | undefined;
  #entriesVersion: number | undefined;
  /** Whether entries may be used: on SQLite while the server runs, on PostgreSQL while its listening connection is up. */
  usable = false;

  /** SQLite: entries are used, and kept while the credentials' version stays the same. */
  keepWhileUnchanged(versions: SqliteVersions): void {
    this.#versions = versions;
    this.#othersCommitted = undefined;
    this.#entriesVersion = undefined;
    this.empty();
    this.usable = true;
  }

  /** Nothing is used or kept any more: the server has stopped. */
  stop(): void {
    this.usable = false;
    this.#versions = undefined;
    this.empty();
  }

  async read(
    keyHash: string,
    load: () => Promise<Row | undefined>,
    readEachTime: ReadEachTime<Row>,
  ): Promise<Row | undefined> {
    if (!this.usable) return load();
    if (this.#versions !== undefined) {
      const committed = this.#versions.othersCommitted();
      if (committed !== this.#othersCommitted) {
        this.#othersCommitted = committed;
        const version = this.#versions.credentials();
        if (version !== this.#entriesVersion) {
          this.empty();
          this.#entriesVersion = version;
        }
      }
    }
    const cached = this.#entries.get(keyHash);
    if (cached !== undefined && performance.now() - cached.storedAt < MAX_AGE_MS) return cached.row;
    const generation = this.#generation;
    const row = await load();
    if (row === undefined || (this.#versions === undefined && readEachTime(row))) return row;
    if (this.usable && generation === this.#generation) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.delete(keyHash);
      this.#entries.set(keyHash, { row, storedAt: performance.now() });
    }
    return row;
  }

  empty(): void {
    this.#generation += 1;
    this.#entries.clear();
  }
}

/**
 * In the service's memory, its key lookups: kept only once the server has started keeping them
 * (keepCredentialLookups); until then, and in a context made outside a service, every lookup reads the database.
 */
const KEPT_CREDENTIALS: MemoryPart<CredentialsCache<unknown>> = {
  name: 'kept credentials',
  make: () => new CredentialsCache<unknown>(),
};

/**
 * `load(keyHash)`'s result, from the service's cache when it keeps one; a row for which `readEachTime` holds is kept
 * only where every lookup learns of other processes' commits first (SQLite).
 */
export function cachedCredentials<Row>(
  memory: ServiceMemory,
  keyHash: string,
  load: () => Promise<Row | undefined>,
  readEachTime: ReadEachTime<Row>,
): Promise<Row | undefined> {
  const cache = memory.part(KEPT_CREDENTIALS) as CredentialsCache<Row>;
  return cache.read(keyHash, load, readEachTime);
}

/**
 * Called by every write that changes what a key lookup returns, inside its transaction when it has one: the
 * service's cache (of `memory`) is emptied once it commits, other processes' and services' when they hear of it.
 */
export async function credentialsChanged(db: Db, memory: ServiceMemory): Promise<void> {
  if (isPostgres(db)) await sql`select pg_notify(${CHANNEL}, '')`.execute(db);
  const cache = memory.part(KEPT_CREDENTIALS);
  const registered = await whenTransactionEnds(db, (committed) => {
    if (committed) cache.empty();
  });
  if (!registered) cache.empty();
}

export interface KeptCredentials {
  close(): Promise<void>;
}

/**
 * Starts caching the service's key lookups (of `memory`), on `db`, the server's database. On SQLite the database
 * says when another process changed an account or a key; on PostgreSQL a connection of its own listens for changes
 * made by other processes, and is opened again when it breaks.
 */
export async function keepCredentialLookups(
  target: DatabaseTarget,
  db: Db,
  memory: ServiceMemory,
  log: Pick<Logger, 'warn'>,
): Promise<KeptCredentials> {
  const cache = memory.part(KEPT_CREDENTIALS);
  if (target.dialect !== 'postgres') return keepWhileCredentialsUnchanged(db, cache);
  let client: Pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;

  const lost = (broken: Pg.Client, error?: Error) => {
    if (broken !== client) return;
    client = undefined;
    clearInterval(heartbeat);
    cache.usable = false;
    cache.empty();
    broken.removeAllListeners();
    broken.on('error', () => {});
    broken.end().catch(() => {});
    if (closed) return;
    log.warn(
      { err: error },
      'lost the connection listening for API key changes; looking keys up in the database',
    );
    retry = setTimeout(listen, RECONNECT_MS);
    retry.unref();
  };

  const listen = async () => {
    // A silently dropped connection is noticed, and the cache bypassed: by the heartbeat's query_timeout, and by
    // TCP keep-alive from 10 s (the system's default waits two hours).
    const next = new (loadPg().Client)({
      connectionString: target.url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: HEARTBEAT_MS,
      // Names the connection in pg_stat_activity, for an operator (and a test) looking for it.
      application_name: `billing-credentials-${process.pid}`,
    });
    client = next;
    next.on('notification', () => cache.empty());
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      lost(next, error as Error);
      return;
    }
    if (client !== next || closed) return;
    cache.empty();
    cache.usable = true;
    heartbeat = setInterval(() => {
      next.query('select 1').catch((error: Error) => lost(next, error));
    }, HEARTBEAT_MS);
    heartbeat.unref();
  };

  await listen();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      cache.stop();
      const open = client;
      client = undefined;
      await open?.end().catch(() => {});
    },
  };
}

/** SQLite: lookups kept while no process has changed an account or a key. */
function keepWhileCredentialsUnchanged(db: Db, cache: CredentialsCache<unknown>): KeptCredentials {
  const reader = directReaderOf(db);
  if (!reader) return { close: async () => {} };
  cache.keepWhileUnchanged({
    othersCommitted: () => reader.othersCommitted(),
    credentials: () => {
      const [row] = reader.all('select version from credentials_version', []) as { version: number }[];
      return row!.version;
    },
  });
  return {
    async close() {
      cache.stop();
    },
  };
}
