import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage } from './database.ts';
import type { Storage } from './database.ts';

let dir: string;
let storage: Storage | undefined;

afterEach(async () => {
  await storage?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A SQLite storage whose writer never checkpoints itself: what is copied into the file, the thread copied. */
async function storageWithoutWriterCheckpoints(): Promise<{ storage: Storage; file: string }> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-checkpoints-'));
  const file = path.join(dir, 'billing.db');
  storage = openStorage({ dialect: 'sqlite', file });
  await sql`pragma wal_autocheckpoint = 0`.execute(storage.db);
  await sql`create table rows (id integer primary key, text text not null)`.execute(storage.db);
  return { storage, file };
}

/** `count` transactions of 10 rows of 1 kB each. */
async function write(db: Storage['db'], count: number): Promise<void> {
  const text = 'x'.repeat(1_000);
  for (let i = 0; i < count; i += 1) {
    await db.transaction().execute(async (trx) => {
      for (let j = 0; j < 10; j += 1) await sql`insert into rows (text) values (${text})`.execute(trx);
    });
  }
}

describe('SQLite checkpoints in a thread of their own', () => {
  it('copy the log into the database file beside the writer once the log has grown', async () => {
    const { storage, file } = await storageWithoutWriterCheckpoints();
    // About 2 MB of log, over the 1 MB that starts the thread; the commits after it ask for a checkpoint.
    await write(storage.db, 200);
    const before = fs.statSync(file).size;
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(1_000_000);
    // The thread's answer comes when it likes (its start alone took over a second on a loaded machine): the commits
    // go on until the file holds the rows.
    await expect
      .poll(
        async () => {
          await write(storage.db, 1);
          return fs.statSync(file).size;
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(before + 1_000_000);
    const { count } = (await sql<{ count: number }>`select count(*) as count from rows`.execute(storage.db))
      .rows[0]!;
    expect(count).toBeGreaterThan(2_000);
  });
});
