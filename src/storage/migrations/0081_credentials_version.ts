import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { isPostgres } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * SQLite only: a counter that every update or deletion of `accounts` or `api_keys` rows moves, by trigger. A server
 * keeps its key lookups while the counter stays the same (src/modules/auth/credentialsCache.ts). It asked before
 * whether anything at all had been committed (`PRAGMA data_version`), so a server taking payments or usage looked
 * its keys up again on nearly every request (docs/benchmarks.md, "Key lookups kept on SQLite"). A key inserted needs
 * no move: only keys found are kept. PostgreSQL's processes hear of changes by notification instead.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`create table credentials_version (
    id integer primary key check (id = 1),
    version integer not null
  )`.execute(db);
  await sql`insert into credentials_version (id, version) values (1, 0)`.execute(db);
  for (const [table, change] of [
    ['accounts', 'update'],
    ['accounts', 'delete'],
    ['api_keys', 'update'],
    ['api_keys', 'delete'],
  ] as const) {
    await sql
      .raw(
        `create trigger ${table}_${change}_moves_credentials_version after ${change} on ${table}
         begin update credentials_version set version = version + 1; end`,
      )
      .execute(db);
  }
}
