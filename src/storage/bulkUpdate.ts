import { sql } from 'kysely';
import { isPostgres } from './columns.ts';
import type { Db } from './database.ts';

/** A column's type on PostgreSQL, which a VALUES list of parameters needs spelled out (see updateRowsById). */
export type PgColumnType = 'bigint' | 'integer' | 'text' | 'date' | 'numeric' | 'boolean' | 'timestamptz';

export interface RowUpdate {
  id: number;
  /** The new values, keyed by column; every row of one call sets the same columns. */
  values: Record<string, unknown>;
}

/** Parameters per statement stay well below SQLite's 32 766 and PostgreSQL's 65 535. */
const MAX_PARAMETERS = 30_000;

/**
 * Gives each row (by id, within the account) its own new values in one statement per few thousand values,
 * instead of one UPDATE per row:
 *
 *   WITH v(id, a, b) AS (VALUES (?, ?, ?), ...) UPDATE t SET a = v.a, b = v.b FROM v
 *   WHERE t.id = v.id AND t.id IN (?, ...) AND t.account_id = ? [AND t.<onlyWhereNull> IS NULL]
 *
 * The ids are also listed with IN, so that the planner reads the table by its primary key whatever its statistics say
 * (PostgreSQL, without statistics on a freshly filled table, otherwise joins the VALUES list against a full scan).
 *
 * Returns the number of rows updated. NOTE: PostgreSQL types the parameters of a VALUES list as text, so there
 * every value is cast to its column's type (`columns`); SQLite (UPDATE ... FROM since 3.33) takes the values as
 * bound, and must not get the casts: CAST(... AS date) would apply NUMERIC affinity and turn '2026-03-01' into 2026.
 */
export async function updateRowsById(
  db: Db,
  table: string,
  accountId: number,
  columns: Record<string, PgColumnType>,
  rows: readonly RowUpdate[],
  options: { onlyWhereNull?: string } = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  const names = Object.keys(columns);
  const postgres = isPostgres(db);
  const value = (v: unknown, type: PgColumnType) =>
    postgres ? sql`cast(${v} as ${sql.raw(type)})` : sql`${v}`;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / (names.length + 2)));
  let updated = 0;
  for (let at = 0; at < rows.length; at += perStatement) {
    const chunk = rows.slice(at, at + perStatement);
    const tuples = chunk.map(
      (row) =>
        sql`(${sql.join([value(row.id, 'bigint'), ...names.map((name) => value(row.values[name] ?? null, columns[name]!))])})`,
    );
    const target = sql.table(table);
    const guard = options.onlyWhereNull
      ? sql` and ${sql.ref(`${table}.${options.onlyWhereNull}`)} is null`
      : sql``;
    const result =
      await sql`with v(${sql.join([sql.id('id'), ...names.map((name) => sql.id(name))])}) as (values ${sql.join(tuples)})
      update ${target} set ${sql.join(names.map((name) => sql`${sql.id(name)} = ${sql.ref(`v.${name}`)}`))}
      from v where ${sql.ref(`${table}.id`)} = ${sql.ref('v.id')} and ${sql.ref(`${table}.id`)} in (${sql.join(chunk.map((row) => row.id))})
      and ${sql.ref(`${table}.account_id`)} = ${accountId}${guard}`.execute(db);
    updated += Number(result.numAffectedRows ?? 0n);
  }
  return updated;
}
