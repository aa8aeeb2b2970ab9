import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.ts';
import { letLoopTurnInside, openStorage } from '../../src/storage/database.ts';
import type { Storage } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { preparedQuery } from '../../src/storage/prepared.ts';
import { sentTogether } from '../../src/storage/sentTogether.ts';
import { whenTransactionEnds } from '../../src/storage/transactionEnd.ts';
import { freshDatabase } from '../helpers/service.ts';

let storage: Storage;
let drop: () => Promise<void>;
let dataDir: string;
let databaseUrl: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-storage-'));
  const database = await freshDatabase(dataDir);
  drop = database.drop;
  databaseUrl = database.url;
  storage = openStorage(parseDatabaseUrl(database.url, dataDir));
  await migrateToLatest(storage.db);
});
afterAll(async () => {
  await storage.close();
  await drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const NOW = '2026-11-22T10:00:00.000Z';

async function insertAccount(name: string): Promise<number> {
  const row = await storage.db
    .insertInto('accounts')
    .values({ name, time_zone: 'UTC', currency_code: 'USD', created_at: NOW })
    .returning('id')
    .executeTakeFirstOrThrow();
  await storage.db
    .insertInto('account_currencies')
    .values({ account_id: row.id, currency_code: 'USD', created_at: NOW })
    .execute();
  return row.id;
}

const accountNamed = preparedQuery((db, name: string) =>
  db.selectFrom('accounts').select(['id', 'name', 'created_at']).where('name', '=', name).orderBy('id'),
);

const accountsNamedIn = preparedQuery((db, currency: string, names: string[]) =>
  db
    .selectFrom('accounts')
    .select('name')
    .where('currency_code', '=', currency)
    .where('name', 'in', names)
    .orderBy('name'),
);

describe('storage', () => {
  it('reads the same values on both dialects: numbers, booleans, ISO instants', async () => {
    const accountId = await insertAccount('types');
    await storage.db
      .insertInto('customers')
      .values({
        account_id: accountId,
        name: 'x',
        currency_code: 'USD',
        is_company: true,
        is_active: false,
        is_suspended: false,
        is_waive_taxes: false,
        auto_send_invoice: true,
        auto_send_statement: false,
        country_id: 9_007_199_254_740_991,
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    const row = await storage.db
      .selectFrom('customers')
      .select(['id', 'is_company', 'is_active', 'country_id', 'created_at'])
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(typeof row.id).toBe('number');
    expect(Boolean(row.is_company)).toBe(true);
    expect(Boolean(row.is_active)).toBe(false);
    expect(row.country_id).toBe(Number.MAX_SAFE_INTEGER);
    expect(row.created_at).toBe(NOW);
  });

  it("runs a prepared query with each call's values", async () => {
    const first = await insertAccount('prepared-a');
    const second = await insertAccount('prepared-b');
    expect(await accountNamed(storage.db, 'prepared-a')).toEqual([
      { id: first, name: 'prepared-a', created_at: NOW },
    ]);
    expect(await accountNamed(storage.db, 'prepared-b')).toEqual([
      { id: second, name: 'prepared-b', created_at: NOW },
    ]);
    expect(await accountNamed(storage.db, 'nobody')).toEqual([]);
  });

  it('runs a prepared query with lists of any length, each with its own values', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `listed-${String(i).padStart(2, '0')}`);
    for (const name of names) await insertAccount(name);
    const named = async (list: string[]) =>
      (await accountsNamedIn(storage.db, 'USD', list)).map((row) => row.name);
    expect(await named(names.slice(0, 2))).toEqual(names.slice(0, 2));
    expect(await named([names[5]!, 'nobody'])).toEqual([names[5]]);
    expect(await named(names.slice(3, 6))).toEqual(names.slice(3, 6));
    // Longer than the lists it keeps compiled: compiled per call, same answer.
    expect(await named(names)).toEqual(names);
    expect(await named(names.slice(1))).toEqual(names.slice(1));
    expect(await accountsNamedIn(storage.db, 'EUR', names.slice(0, 2))).toEqual([]);
  });

  it('refuses a row passed alone to a prepared query, which would be bound as one value', async () => {
    const insertOne = preparedQuery(
      (db, row: { name: string; time_zone: string; currency_code: string; created_at: string }) =>
        db.insertInto('accounts').values(row),
    );
    await expect(
      insertOne(storage.db, { name: 'alone', time_zone: 'UTC', currency_code: 'USD', created_at: NOW }),
    ).rejects.toThrow(/pass rows as a list/);
    expect(await accountNamed(storage.db, 'alone')).toEqual([]);
  });

  it('reads only committed data outside a transaction, and its own writes inside one', async () => {
    let insideSaw: unknown[] = [];
    let outsideSaw: unknown[] = [];
    await storage.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('accounts')
        .values({ name: 'uncommitted', time_zone: 'UTC', currency_code: 'USD', created_at: NOW })
        .execute();
      insideSaw = await accountNamed(trx, 'uncommitted');
      // NOTE: on SQLite a plain Kysely read here would wait for the transaction to end, that is forever; the
      // prepared read runs on the read connection.
      outsideSaw = await accountNamed(storage.db, 'uncommitted');
    });
    expect(insideSaw).toHaveLength(1);
    expect(outsideSaw).toEqual([]);
    expect(await accountNamed(storage.db, 'uncommitted')).toHaveLength(1);
  });

  it('lets a transaction that read first write after another connection tried to write', async () => {
    // Another process beside this one (the CLI beside the server), as a connection of its own. On SQLite it does
    // not wait for the lock: in this process, waiting for this process's own transaction would never end.
    const target = parseDatabaseUrl(databaseUrl, dataDir);
    const otherWrite = async (name: string): Promise<string> => {
      if (target.dialect === 'postgres') {
        const other = openStorage(target);
        await other.db
          .insertInto('accounts')
          .values({ name, time_zone: 'UTC', currency_code: 'USD', created_at: NOW })
          .execute()
          .finally(() => other.close());
        return 'written';
      }
      const connection = new BetterSqlite3(target.file);
      try {
        connection.pragma('busy_timeout = 0');
        connection
          .prepare('insert into accounts (name, time_zone, currency_code, created_at) values (?, ?, ?, ?)')
          .run(name, 'UTC', 'USD', NOW);
        return 'written';
      } catch (error) {
        return String((error as { code?: string }).code);
      } finally {
        connection.close();
      }
    };

    let meanwhile = 'not tried';
    await storage.db.transaction().execute(async (trx) => {
      await trx.selectFrom('accounts').select('id').execute();
      meanwhile = await otherWrite('meanwhile');
      // A deferred SQLite transaction would fail here (SQLITE_BUSY_SNAPSHOT) had the other write committed.
      await trx
        .insertInto('accounts')
        .values({ name: 'read first', time_zone: 'UTC', currency_code: 'USD', created_at: NOW })
        .execute();
    });
    expect(await accountNamed(storage.db, 'read first')).toHaveLength(1);
    if (target.dialect === 'sqlite') {
      // The transaction held SQLite's write lock from its start: the other writer had to wait for its end.
      expect(meanwhile).toBe('SQLITE_BUSY');
      expect(await otherWrite('meanwhile')).toBe('written');
    } else {
      expect(meanwhile).toBe('written');
    }
    expect(await accountNamed(storage.db, 'meanwhile')).toHaveLength(1);
  });

  it('lets the event loop turn between the statements of a transaction only once it asks (letLoopTurnInside)', async () => {
    /** A transaction of statements held back to back for about 60 ms; whether a turn of the loop came meanwhile. */
    const loopTurnedDuring = async (asks: boolean) => {
      let turned = false;
      await storage.db.transaction().execute(async (trx) => {
        if (asks) await letLoopTurnInside(trx);
        setImmediate(() => {
          turned = true;
        });
        for (let i = 0; i < 30; i += 1) {
          const until = performance.now() + 2;
          while (performance.now() < until);
          await sql`select 1`.execute(trx);
        }
      });
      return turned;
    };
    expect(await loopTurnedDuring(true)).toBe(true);
    // The next transaction on the connection holds the loop again; PostgreSQL's statements never hold it.
    expect(await loopTurnedDuring(false)).toBe(storage.dialect === 'postgres');
  });

  it('goes on with work that held the loop only after the loop polled: a request that came meanwhile is read first', async () => {
    // Two connections to a server of this process. A's data starts the work, from I/O as a request's handler does;
    // B's is sent as it starts, so it arrives while the work holds the loop. Statements outside a transaction, each
    // after 2 ms of the loop held: the work lets the loop turn once it has held it 10 ms (src/storage/database.ts).
    let statements = 0;
    let turnAt: number | undefined;
    let bReadAt: number | undefined;
    const server = net.createServer();
    const clients: { b?: net.Socket } = {};
    const workDone = new Promise<void>((resolve, reject) => {
      server.on('connection', (socket) => {
        socket.once('data', (data) => {
          if (data.toString() === 'b') {
            bReadAt = statements;
            return;
          }
          clients.b!.write('b');
          // The turn's check phase, whichever statement the work is at then.
          setImmediate(() => (turnAt = statements));
          void (async () => {
            for (let i = 0; i < 30; i += 1) {
              const until = performance.now() + 2;
              while (performance.now() < until);
              await sql`select 1`.execute(storage.db);
              statements += 1;
            }
          })().then(resolve, reject);
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const connect = () =>
      new Promise<net.Socket>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
      });
    const [a, b] = await Promise.all([connect(), connect()]);
    clients.b = b;
    a.write('a');
    await workDone;
    a.destroy();
    b.destroy();
    await new Promise((resolve) => server.close(resolve));
    expect(bReadAt).toBeDefined();
    // SQLite: the work went on after the turn in which it let the loop go, and B was read in that turn's poll, before
    // the work's next statement. (Went on from the same turn's check phase, it ran another 10 ms before B was read.)
    // PostgreSQL's statements never hold the loop: B is read while the first ones are answered.
    if (storage.dialect === 'sqlite') expect(bReadAt).toBe(turnAt);
    else expect(bReadAt).toBeLessThan(5);
  });

  it('sends reads together in a transaction: each sees its writes and gives its own result, in order', async () => {
    const [one, two, none] = await storage.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('accounts')
        .values([
          { name: 'together-1', time_zone: 'UTC', currency_code: 'USD', created_at: NOW },
          { name: 'together-2', time_zone: 'UTC', currency_code: 'EUR', created_at: NOW },
        ])
        .execute();
      return sentTogether(
        trx,
        (db) => accountNamed(db, 'together-1'),
        (db) => db.selectFrom('accounts').select('currency_code').where('name', '=', 'together-2').execute(),
        (db) => accountNamed(db, 'together-none'),
      );
    });
    expect(one.map((row) => row.name)).toEqual(['together-1']);
    expect(two).toEqual([{ currency_code: 'EUR' }]);
    expect(none).toEqual([]);
  });

  it('throws the first failing read of those sent together, and the transaction rolls back', async () => {
    await expect(
      storage.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('accounts')
          .values({ name: 'together-failed', time_zone: 'UTC', currency_code: 'USD', created_at: NOW })
          .execute();
        await sentTogether(
          trx,
          (db) => accountNamed(db, 'together-failed'),
          (db) => sql`select * from no_such_table`.execute(db),
          () => Promise.reject(new Error('a later failure')),
        );
      }),
    ).rejects.toThrow(/no_such_table/);
    expect(await accountNamed(storage.db, 'together-failed')).toEqual([]);
  });

  it('sees a rolled-back write nowhere', async () => {
    await expect(
      storage.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('accounts')
          .values({ name: 'rolled-back', time_zone: 'UTC', currency_code: 'USD', created_at: NOW })
          .execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await accountNamed(storage.db, 'rolled-back')).toEqual([]);
  });

  describe('whenTransactionEnds', () => {
    // What a hook sees of the database: from the pool (PostgreSQL) or SQLite's read connection, never the transaction.
    const committedNamed = async (name: string) =>
      (await accountNamed(storage.db, name)).map((row) => row.name);

    it('calls the hook after COMMIT, when another connection already sees what the transaction wrote', async () => {
      const seen: { committed: boolean; visible: string[] }[] = [];
      const ended: Promise<void>[] = [];
      await storage.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('accounts')
          .values({ name: 'hooked', time_zone: 'UTC', currency_code: 'USD', created_at: NOW })
          .execute();
        const registered = await whenTransactionEnds(trx, (committed) => {
          ended.push(committedNamed('hooked').then((visible) => void seen.push({ committed, visible })));
        });
        expect(registered).toBe(true);
        expect(seen).toEqual([]);
      });
      await Promise.all(ended);
      expect(seen).toEqual([{ committed: true, visible: ['hooked'] }]);
    });

    it('calls the hook with false after a ROLLBACK, and every hook once', async () => {
      const calls: string[] = [];
      await expect(
        storage.db.transaction().execute(async (trx) => {
          await whenTransactionEnds(trx, (committed) => calls.push(`first ${committed}`));
          await whenTransactionEnds(trx, (committed) => calls.push(`second ${committed}`));
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      await storage.db.transaction().execute(async () => {});
      expect(calls).toEqual(['first false', 'second false']);
    });

    it('reports a failing hook without undoing the commit', async () => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on('warning', onWarning);
      try {
        await storage.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('accounts')
            .values({ name: 'kept', time_zone: 'UTC', currency_code: 'USD', created_at: NOW })
            .execute();
          await whenTransactionEnds(trx, () => {
            throw new Error('hook failed');
          });
        });
        await new Promise((resolve) => setImmediate(resolve));
        expect(await committedNamed('kept')).toEqual(['kept']);
        expect(warnings.map((warning) => warning.message)).toEqual(['hook failed']);
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('is refused outside a transaction', async () => {
      expect(await whenTransactionEnds(storage.db, () => {})).toBe(false);
    });
  });
});

describe('migrating a database already at the latest migration', () => {
  it('reads the migration table alone, not the tables of every schema', async () => {
    const queries: string[] = [];
    const again = openStorage(parseDatabaseUrl(databaseUrl, dataDir), {
      onQuery: (text) => queries.push(text),
    });
    try {
      expect(await migrateToLatest(again.db)).toEqual([]);
    } finally {
      await again.close();
    }
    expect(queries.length).toBeLessThanOrEqual(3);
    expect(queries.filter((text) => /pg_catalog\.|information_schema|pg_class|pragma/i.test(text))).toEqual(
      [],
    );
    expect(queries.at(-1)).toMatch(/select name from .*kysely_migration/);
  });

  it('leaves a migration this version does not know to the migrator, which refuses the database', async () => {
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_a_newer_version', ${NOW})`.execute(
      storage.db,
    );
    try {
      await expect(migrateToLatest(storage.db)).rejects.toThrow(/9999_from_a_newer_version/);
    } finally {
      await sql`delete from kysely_migration where name = '9999_from_a_newer_version'`.execute(storage.db);
    }
    expect(await migrateToLatest(storage.db)).toEqual([]);
  });
});
