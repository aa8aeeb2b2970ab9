import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Storage } from '../../src/storage/database.ts';
import { freshDatabase } from '../helpers/service.ts';

// pg's Connection, which writes the protocol's messages: its Describe messages are counted, not replaced.
const PgConnection = createRequire(import.meta.url)('pg/lib/connection.js') as {
  prototype: { describe(message: unknown): void };
};

// Named statements are PostgreSQL's (src/storage/pgNamedStatements.ts); SQLite prepares each statement once anyway,
// so this file runs in the postgres project only (vitest.config.ts, `*.postgres.test.ts`).
describe('named statements described once per connection (PostgreSQL)', () => {
  let storage: Storage;
  let drop: () => Promise<void>;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-described-'));
    const database = await freshDatabase(dataDir);
    drop = database.drop;
    const target = parseDatabaseUrl(database.url, dataDir);
    if (target.dialect !== 'postgres') throw new Error('a PostgreSQL database was expected');
    // One connection: every run after the first finds the statement prepared, and described, there.
    storage = openStorage({ ...target, pool: { size: 1, acquireTimeoutMs: 0 } });
    await sql`create table "figures" ("id" bigint, "amount" numeric, "due" date, "at" timestamptz, "paid" boolean, "note" text)`.execute(
      storage.db,
    );
    await sql`insert into "figures" values (1, 12.50, '2026-03-01', '2026-03-01T10:00:00.123Z', true, 'first'),
      (9007199254740991, 0.10, '2026-12-31', '2026-11-26T23:59:59Z', false, null),
      (3, null, null, null, null, null)`.execute(storage.db);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await storage.close();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const figure = async (id: number) =>
    (
      await sql<
        Record<string, unknown>
      >`select "id", "amount", "due", "at", "paid", "note", "amount" + 1 as "next"
        from "figures" where "id" = ${id} -- described test 1`.execute(storage.db)
    ).rows;

  it('reads the same values on every run while describing the rows once', async () => {
    const describes = vi.spyOn(PgConnection.prototype, 'describe');
    const expected = {
      1: [
        {
          id: 1,
          amount: '12.50',
          due: '2026-03-01',
          at: '2026-03-01T10:00:00.123Z',
          paid: true,
          note: 'first',
          next: '13.50',
        },
      ],
      9007199254740991: [
        {
          id: 9007199254740991,
          amount: '0.10',
          due: '2026-12-31',
          at: '2026-11-26T23:59:59.000Z',
          paid: false,
          note: null,
          next: '1.10',
        },
      ],
      3: [{ id: 3, amount: null, due: null, at: null, paid: null, note: null, next: null }],
      4: [],
    };
    // The nulls first: the parsers kept from that run must serve the later rows that have values.
    for (const round of [1, 2, 3])
      for (const id of [3, 4, 1, 9007199254740991])
        expect(await figure(id), `round ${round}, id ${id}`).toEqual(expected[id as 1]);
    // Unnamed the first time it is seen (described), named and described the second, then never again.
    expect(describes).toHaveBeenCalledTimes(2);
    expect(Object.keys((await figure(1))[0]!)).toEqual(['id', 'amount', 'due', 'at', 'paid', 'note', 'next']);
  });

  it('describes again after a run that failed, and reads the next run right', async () => {
    const sum = (id: unknown) =>
      sql<{
        id: number;
        total: string;
      }>`select "id", "amount" + "amount" as "total" from "figures" where "id" = ${id} -- described test 2`.execute(
        storage.db,
      );
    await sum(1);
    await sum(1);
    const describes = vi.spyOn(PgConnection.prototype, 'describe');
    expect((await sum(1)).rows).toEqual([{ id: 1, total: '25.00' }]);
    expect(describes).not.toHaveBeenCalled();
    await expect(sum('not a number')).rejects.toMatchObject({ code: '22P02' });
    expect((await sum(9007199254740991)).rows).toEqual([{ id: 9007199254740991, total: '0.20' }]);
    expect(describes).toHaveBeenCalledTimes(1);
  });

  it("prepares a statement again once PostgreSQL refuses it because its columns' types changed", async () => {
    await sql`create table "shapes" ("id" bigint, "size" integer)`.execute(storage.db);
    await sql`insert into "shapes" values (1, 7)`.execute(storage.db);
    const shape = (id: number) =>
      sql<{
        id: number;
        size: unknown;
      }>`select "id", "size" from "shapes" where "id" = ${id} -- described test 3`.execute(storage.db);
    for (let i = 0; i < 3; i++) expect((await shape(1)).rows).toEqual([{ id: 1, size: 7 }]);
    // What a migration altering the column would do while the server runs.
    await sql`alter table "shapes" alter column "size" type numeric`.execute(storage.db);
    await expect(shape(1)).rejects.toMatchObject({ code: '0A000' });
    expect((await shape(1)).rows).toEqual([{ id: 1, size: '7' }]);
    expect((await shape(1)).rows).toEqual([{ id: 1, size: '7' }]);
  });
});
