import { CompiledQuery } from 'kysely';
import type { Compilable } from 'kysely';
import { directReaderOf } from './database.ts';
import type { Db } from './database.ts';
import { isPostgres } from './columns.ts';

/**
 * A query built and compiled once per dialect, then run with each call's values. Kysely builds and compiles every
 * query anew, which on the hottest paths (authentication, single reads) costs more than running it. Outside a
 * transaction on SQLite it runs on the read connection (see openSqlite).
 *
 * `build` receives stand-ins for the arguments and must use each of them as a plain parameter value (in `where`,
 * `values` or `set`), never to shape the query: the SQL text is fixed by the first call.
 */
export function preparedQuery<A extends unknown[], R>(build: (db: Db, ...args: A) => Compilable<R>) {
  const compiled = new Map<
    boolean,
    { sql: string; slots: (number | undefined)[]; constants: readonly unknown[] }
  >();

  function compile(db: Db, arity: number) {
    const standIns = Array.from({ length: arity }, (_, i) => `\u0000argument-${i}\u0000`);
    const query = build(db, ...(standIns as A)).compile();
    const slots = query.parameters.map((value) => {
      const index = standIns.indexOf(value as string);
      return index < 0 ? undefined : index;
    });
    return { sql: query.sql, slots, constants: query.parameters };
  }

  return async (db: Db, ...args: A): Promise<R[]> => {
    const dialect = isPostgres(db);
    let query = compiled.get(dialect);
    if (!query) {
      query = compile(db, args.length);
      compiled.set(dialect, query);
    }
    const { slots, constants } = query;
    const parameters = slots.map((slot, i) => (slot === undefined ? constants[i] : args[slot]));
    const reader = directReaderOf(db);
    if (reader) return reader.all(query.sql, parameters) as R[];
    const result = await db.executeQuery<R>(CompiledQuery.raw(query.sql, parameters));
    return result.rows;
  };
}
