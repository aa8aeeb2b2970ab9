import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  createQueryId,
  sql,
} from 'kysely';
import type { Compilable, CompiledQuery } from 'kysely';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';

// The insert path's statements, compiled once (docs/design/usage.md, "Speed (bench:usage)"). NOTE: Kysely parses
// and compiles a multi-row insert anew for every batch, which cost as much as SQLite running it. Here each
// statement is built once per dialect and row count and then run with the rows' values: on PostgreSQL one text
// whatever the rows (arrays unnested), which the pool names and the server plans once; on SQLite one text per
// chunk size (ROW_CHUNKS), which the connection keeps prepared. Rows that lock (transactions, rollups) come sorted
// by the repository (usageEvent.repository.ts).

/** SQLite's multi-row statements take rows in chunks of these sizes, largest first: few texts, few statements. */
const ROW_CHUNKS = [100, 64, 32, 16, 8, 4, 2, 1];

/** `rows` cut into chunks of ROW_CHUNKS' sizes, in order. */
function sqliteChunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  let at = 0;
  while (at < rows.length) {
    const size = ROW_CHUNKS.find((n) => n <= rows.length - at)!;
    out.push(rows.slice(at, at + size));
    at += size;
  }
  return out;
}

export type Values = readonly unknown[];

/** What a built statement keeps: its text, and its operation node, which the database's plugins are shown. */
type Built = Pick<CompiledQuery, 'sql' | 'query'>;
const built = new Map<string, Built>();

/**
 * Compile-only databases, one per dialect, without connections or plugins. NOTE: a statement built on the caller's
 * database would go through its plugins once when built, and a test's plugin holding the first such statement
 * would take the build for the run; built here, the plugins see each run instead (runBuilt).
 */
const compilers = {
  pg: new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
  sqlite: new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
};

/** The statement `key` (dialect, kind and rows), built by `build` the first time it is asked for. */
function statement(db: Db, key: string, build: (bare: Db) => Compilable<unknown>): Built {
  const dialect = isPostgres(db) ? 'pg' : 'sqlite';
  const full = `${dialect}:${key}`;
  let found = built.get(full);
  if (found === undefined) {
    const { sql: text, query } = build(compilers[dialect]).compile();
    found = { sql: text, query };
    built.set(full, found);
  }
  return found;
}

/**
 * Runs a built statement with `parameters`, in the order its text takes them. Its node goes through the
 * database's plugins as a built query's would (a test holds a statement's answer through one).
 */
async function runBuilt<R>(db: Db, { sql: text, query }: Built, parameters: Values): Promise<R[]> {
  const queryId = createQueryId();
  const executor = db.getExecutor();
  const node = executor.transformQuery(query, queryId);
  const result = await executor.executeQuery<R>({ sql: text, query: node, queryId, parameters });
  return result.rows;
}

/** `(?, ?, …), (…)` for `rows` rows of `width` values: placeholders only, the values come at run time. */
function valuesList(rows: number, width: number) {
  const row = sql`(${sql.join(Array.from({ length: width }, () => sql`${null}`))})`;
  return sql`values ${sql.join(Array.from({ length: rows }, () => row))}`;
}

/** `select … from unnest($1::type[], …)` for columns of these types, in order of the arrays. */
function unnested(
  columns: readonly (readonly [name: string, type: string])[],
  scalars: readonly string[] = [],
) {
  const arrays = columns.map(([, type]) => sql`${null}::${sql.raw(type)}[]`);
  const scalarValues = scalars.map((type) => sql`${null}::${sql.raw(type)}`);
  const names = sql.raw(columns.map(([name]) => name).join(', '));
  return sql`select ${sql.join([...scalarValues, names])} from unnest(${sql.join(arrays)}) with ordinality as u(${names}, n) order by n`;
}

/**
 * The arrays of `rows`' columns (each row's values in column order) as PostgreSQL array literals, for an unnested
 * statement. NOTE: written here, not by `pg`, which quotes every element with two regular expressions, numbers
 * too: about 8 % of the server's busy time during ingestion (docs/benchmarks.md, "Usage").
 */
function columnArrays(rows: readonly Values[], columns: readonly (readonly [string, string])[]): string[] {
  return columns.map(([, type], c) => {
    const quoted = type !== 'bigint' && type !== 'boolean';
    let literal = '{';
    for (let i = 0; i < rows.length; i++) {
      if (i > 0) literal += ',';
      literal += arrayElement(rows[i]![c], quoted);
    }
    return literal + '}';
  });
}

const NEEDS_ESCAPE = /["\\]/;

/** One element of an array literal: numbers and booleans bare, text (instants too) quoted, `"` and `\` escaped. */
function arrayElement(value: unknown, quoted: boolean): string {
  if (value === null || value === undefined) return 'NULL';
  if (quoted) {
    const text = String(value);
    return NEEDS_ESCAPE.test(text) ? `"${text.replace(/[\\"]/g, '\\$&')}"` : `"${text}"`;
  }
  if (typeof value === 'boolean') return value ? 't' : 'f';
  // NOTE: a bare element must be a number: text holding a comma would make two elements, and unnest would pad the
  // other columns' arrays with NULLs instead of failing.
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value)))
    return String(value);
  throw new TypeError(`a bare array element must be an integer or a boolean, not ${typeof value}`);
}

/**
 * A multi-row write of the insert path: `leading` values the same for every row (the account, …), then each
 * row's values in the order of its columns.
 */
export interface RowsStatement {
  /** The statement's name among the built ones. */
  kind: string;
  /** The columns of each row's values, after the leading ones: name and PostgreSQL type. */
  columns: readonly (readonly [name: string, type: string])[];
  /** The statement for `rows` rows (0: PostgreSQL's one text for any number of rows). */
  build(bare: Db, rows: number): Compilable<unknown>;
}

/**
 * Writes `rows` with `statement`, in order: on PostgreSQL one statement (the leading values, then one array per
 * column), on SQLite one statement per chunk (each row's leading values, then its own). What the statements
 * return, in order.
 */
export async function writeRows<R>(
  db: Db,
  rowsStatement: RowsStatement,
  leading: Values,
  rows: readonly Values[],
): Promise<R[]> {
  if (rows.length === 0) return [];
  const { kind, columns, build } = rowsStatement;
  if (isPostgres(db)) {
    const text = statement(db, `${kind}:0`, (bare) => build(bare, 0));
    return runBuilt<R>(db, text, [...leading, ...columnArrays(rows, columns)]);
  }
  const width = columns.length;
  const out: R[] = [];
  for (const chunk of sqliteChunks(rows)) {
    const text = statement(db, `${kind}:${chunk.length}`, (bare) => build(bare, chunk.length));
    out.push(...(await runBuilt<R>(db, text, rowParameters(leading, chunk, width))));
  }
  return out;
}

/**
 * Each row's leading values, then its own, in one array. NOTE: written into an array of its final length: a
 * flatMap of spread rows made two arrays a row and took about 4 % of the server's busy time during ingestion
 * (docs/benchmarks.md, "Usage").
 */
function rowParameters(leading: Values, rows: readonly Values[], width: number): unknown[] {
  const stride = leading.length + width;
  const parameters = new Array<unknown>(rows.length * stride);
  let at = 0;
  for (const row of rows) {
    for (let i = 0; i < leading.length; i++) parameters[at++] = leading[i];
    for (let i = 0; i < width; i++) parameters[at++] = row[i];
  }
  return parameters;
}

const CLAIM_COLUMNS = [
  ['transaction_id', 'text'],
  ['customer_id', 'bigint'],
  ['occurred_at', 'timestamptz'],
] as const;

/** Claims of transaction ids, after the account: those claimed now come back with their event ids. */
export const CLAIMS: RowsStatement = {
  kind: 'claim',
  columns: CLAIM_COLUMNS,
  build(bare, rows) {
    const insert = bare
      .insertInto('usage_transactions')
      .columns(['account_id', 'transaction_id', 'customer_id', 'occurred_at']);
    return (
      isPostgres(bare)
        ? insert.expression(unnested(CLAIM_COLUMNS, ['bigint']))
        : insert.expression(valuesList(rows, CLAIM_COLUMNS.length + 1))
    )
      .onConflict((oc) => oc.columns(['account_id', 'transaction_id']).doNothing())
      .returning(['id', 'transaction_id']);
  },
};

/** An event's columns after account_id and received_at, in order. */
const EVENT_COLUMNS_IN = [
  ['id', 'bigint'],
  ['customer_id', 'bigint'],
  ['subscription_id', 'bigint'],
  ['metric_id', 'bigint'],
  ['transaction_id', 'text'],
  ['occurred_at', 'timestamptz'],
  ['properties', 'text'],
  ['counted', 'boolean'],
  ['value', 'bigint'],
  ['unique_value', 'text'],
  ['group_value', 'text'],
] as const;

/** Events, after the account and the instant they were received. */
export const EVENTS: RowsStatement = {
  kind: 'events',
  columns: EVENT_COLUMNS_IN,
  build(bare, rows) {
    const insert = bare
      .insertInto('usage_events')
      .columns(['account_id', 'received_at', ...EVENT_COLUMNS_IN.map(([name]) => name)]);
    return isPostgres(bare)
      ? insert.expression(unnested(EVENT_COLUMNS_IN, ['bigint', 'timestamptz']))
      : insert.expression(valuesList(rows, EVENT_COLUMNS_IN.length + 2));
  },
};

const ROLLUP_KEY_COLUMNS = [
  'account_id',
  'customer_id',
  'subscription_id',
  'metric_id',
  'group_value',
  'hour',
] as const;

/** A rollup's columns after account_id, in order. */
const ROLLUP_COLUMNS_IN = [
  ['customer_id', 'bigint'],
  ['subscription_id', 'bigint'],
  ['metric_id', 'bigint'],
  ['group_value', 'text'],
  ['hour', 'timestamptz'],
  ['event_count', 'bigint'],
  ['value_sum', 'bigint'],
  ['value_max', 'bigint'],
  ['latest_value', 'bigint'],
  ['latest_at', 'timestamptz'],
  ['latest_id', 'bigint'],
  ['weighted_seconds', 'bigint'],
] as const;

/** Rollups added to the stored ones, after the account: an upsert that merges as mergeRollups does. */
export const ROLLUPS: RowsStatement = {
  kind: 'rollups',
  columns: ROLLUP_COLUMNS_IN,
  build(bare, rows) {
    // NOTE: PostgreSQL's two-argument maximum is greatest(); SQLite's is max().
    const greatest = isPostgres(bare) ? sql.raw('greatest') : sql.raw('max');
    const later = sql`(excluded.latest_at > usage_rollups.latest_at or (excluded.latest_at = usage_rollups.latest_at and excluded.latest_id > usage_rollups.latest_id))`;
    const insert = bare
      .insertInto('usage_rollups')
      .columns(['account_id', ...ROLLUP_COLUMNS_IN.map(([name]) => name)]);
    // NOTE: SQLite reads `insert … select … on conflict` as a join's ON unless the select has a WHERE; its rows come
    // as a values list, which needs none.
    return (
      isPostgres(bare)
        ? insert.expression(unnested(ROLLUP_COLUMNS_IN, ['bigint']))
        : insert.expression(valuesList(rows, ROLLUP_COLUMNS_IN.length + 1))
    ).onConflict((oc) =>
      oc.columns(ROLLUP_KEY_COLUMNS).doUpdateSet({
        event_count: sql`usage_rollups.event_count + excluded.event_count`,
        value_sum: sql`usage_rollups.value_sum + excluded.value_sum`,
        value_max: sql`${greatest}(usage_rollups.value_max, excluded.value_max)`,
        latest_value: sql`case when ${later} then excluded.latest_value else usage_rollups.latest_value end`,
        latest_at: sql`case when ${later} then excluded.latest_at else usage_rollups.latest_at end`,
        latest_id: sql`case when ${later} then excluded.latest_id else usage_rollups.latest_id end`,
        weighted_seconds: sql`usage_rollups.weighted_seconds + excluded.weighted_seconds`,
      }),
    );
  },
};

/** A unique value's columns after account_id, in order. */
const UNIQUE_COLUMNS_IN = [
  ['customer_id', 'bigint'],
  ['subscription_id', 'bigint'],
  ['metric_id', 'bigint'],
  ['group_value', 'text'],
  ['hour', 'timestamptz'],
  ['unique_value', 'text'],
] as const;

/** The values unique_count counts, after the account; one already kept is left as it is. */
export const UNIQUE_VALUES: RowsStatement = {
  kind: 'uniques',
  columns: UNIQUE_COLUMNS_IN,
  build(bare, rows) {
    const insert = bare
      .insertInto('usage_unique_values')
      .columns(['account_id', ...UNIQUE_COLUMNS_IN.map(([name]) => name)]);
    return (
      isPostgres(bare)
        ? insert.expression(unnested(UNIQUE_COLUMNS_IN, ['bigint']))
        : insert.expression(valuesList(rows, UNIQUE_COLUMNS_IN.length + 1))
    ).onConflict((oc) => oc.doNothing());
  },
};

/** The stored events' count and size a batch adds, after the account. */
const STORAGE_COLUMNS_IN = [
  ['event_count', 'bigint'],
  ['stored_bytes', 'bigint'],
] as const;

/**
 * The account's stored events (docs/usage.md, "Limits"), added to in the batch's transaction: one row, its totals
 * after the batch returned.
 */
export const STORAGE: RowsStatement = {
  kind: 'storage',
  columns: STORAGE_COLUMNS_IN,
  build(bare, rows) {
    const insert = bare
      .insertInto('usage_storage')
      .columns(['account_id', ...STORAGE_COLUMNS_IN.map(([name]) => name)]);
    return (
      isPostgres(bare)
        ? insert.expression(unnested(STORAGE_COLUMNS_IN, ['bigint']))
        : insert.expression(valuesList(rows, STORAGE_COLUMNS_IN.length + 1))
    )
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({
          event_count: sql`usage_storage.event_count + excluded.event_count`,
          stored_bytes: sql`usage_storage.stored_bytes + excluded.stored_bytes`,
        }),
      )
      .returning(['event_count', 'stored_bytes']);
  },
};
