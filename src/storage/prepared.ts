import { CompiledQuery } from 'kysely';
import type { Compilable } from 'kysely';
import { directReaderOf } from './database.ts';
import type { Db } from './database.ts';
import { isPostgres } from './columns.ts';

/**
 * Lists longer than this are built as usual. Callers writing many rows (a bill run's events) insert them in chunks
 * of this many, so that every chunk runs a statement compiled once.
 */
export const MAX_CACHED_LIST_LENGTH = 32;

/** Where a parameter's value comes from: an argument, an element of a list argument, a field of a row in it. */
type Slot = [argument: number, element: number, field: string | undefined] | undefined;

interface Compiled {
  sql: string;
  /** Reads may run on SQLite's read connection outside a transaction; writes never. */
  isRead: boolean;
  slots: Slot[];
  constants: readonly unknown[];
}

const standIn = (argument: number, element = -1, field = '') =>
  `\u0000argument-${argument}-${element}-${field}\u0000`;

const isRow = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A query built and compiled once per dialect and per length of its list arguments, then run with each call's
 * values. Kysely builds and compiles every query anew, which on the hottest paths (authentication, single reads,
 * the reads that render a resource for its event) costs more than running it. Outside a transaction on SQLite it
 * runs on the read connection (see openSqlite).
 *
 * `build` receives stand-ins for the arguments and must use each of them as a plain parameter value (in `where`,
 * `values` or `set`; a list in `where(column, 'in', list)`; a list of rows, each with the same fields, in
 * `values(rows)`), never to shape the query: the SQL text is fixed by the first call with the same list lengths.
 */
export function preparedQuery<A extends unknown[], R>(build: (db: Db, ...args: A) => Compilable<R>) {
  const compiled = new Map<string, Compiled>();

  function compile(db: Db, args: A): Compiled {
    const positions = new Map<string, Slot>();
    const place = (slot: NonNullable<Slot>) => {
      const text = standIn(...slot);
      positions.set(text, slot);
      return text;
    };
    const standIns = args.map((arg, i) => {
      // A row alone would be replaced by one stand-in, not one per field: rows come in lists.
      if (isRow(arg)) throw new TypeError(`preparedQuery: argument ${i} is a row; pass rows as a list`);
      if (!Array.isArray(arg)) return place([i, -1, undefined]);
      return arg.map((element, j) =>
        isRow(element)
          ? Object.fromEntries(Object.keys(element).map((field) => [field, place([i, j, field])]))
          : place([i, j, undefined]),
      );
    });
    const query = build(db, ...(standIns as A)).compile();
    const slots = query.parameters.map((value) => positions.get(value as string));
    return {
      sql: query.sql,
      isRead: query.query.kind === 'SelectQueryNode',
      slots,
      constants: query.parameters,
    };
  }

  function shapeOf(db: Db, args: A): string | undefined {
    let shape = isPostgres(db) ? 'pg' : 'sqlite';
    for (const arg of args) {
      if (!Array.isArray(arg)) continue;
      if (arg.length > MAX_CACHED_LIST_LENGTH) return undefined;
      shape += `,${arg.length}`;
      if (isRow(arg[0])) shape += `:${Object.keys(arg[0]).join(':')}`;
    }
    return shape;
  }

  return async (db: Db, ...args: A): Promise<R[]> => {
    const shape = shapeOf(db, args);
    if (shape === undefined) return (await db.executeQuery(build(db, ...args).compile())).rows;
    let query = compiled.get(shape);
    if (!query) {
      query = compile(db, args);
      compiled.set(shape, query);
    }
    const { slots, constants } = query;
    const parameters = slots.map((slot, i) => {
      if (slot === undefined) return constants[i];
      const [argument, element, field] = slot;
      if (element < 0) return args[argument];
      const value = (args[argument] as unknown[])[element];
      return field === undefined ? value : (value as Record<string, unknown>)[field];
    });
    const reader = query.isRead ? directReaderOf(db) : undefined;
    if (reader) return reader.all(query.sql, parameters) as R[];
    const result = await db.executeQuery<R>(CompiledQuery.raw(query.sql, parameters));
    return result.rows;
  };
}
