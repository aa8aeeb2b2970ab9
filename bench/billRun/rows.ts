/**
 * Rows read and written loosely: the bill-run benchmark copies rows between tables of any name (seeding, the floor),
 * with multi-row statements.
 */
import type { ComparisonOperator, Kysely } from 'kysely';
import type { Db } from '../../src/storage/database.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LooseDb = Kysely<any>;
export type Row = Record<string, unknown>;
export const loose = (db: Db) => db as unknown as LooseDb;

/** Rows per multi-row statement, so that parameters stay below SQLite's 32 766 (and PostgreSQL's 65 535). */
export function rowsPerStatement(row: Row | undefined): number {
  return Math.max(1, Math.floor(30_000 / Math.max(1, Object.keys(row ?? {}).length)));
}

export async function insertRows(db: Db, table: string, rows: Row[]): Promise<void> {
  const size = rowsPerStatement(rows[0]);
  for (let at = 0; at < rows.length; at += size) {
    await loose(db)
      .insertInto(table)
      .values(rows.slice(at, at + size))
      .execute();
  }
}

/** Inserts rows without ids and returns their ids in the rows' order (identity values follow a VALUES list). */
export async function insertReturningIds(db: Db, table: string, rows: Row[]): Promise<number[]> {
  const ids: number[] = [];
  const size = rowsPerStatement(rows[0]);
  for (let at = 0; at < rows.length; at += size) {
    const inserted = (await loose(db)
      .insertInto(table)
      .values(rows.slice(at, at + size))
      .returning('id')
      .execute()) as { id: number }[];
    ids.push(...inserted.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
  return ids;
}

type Condition = [column: string, operator: ComparisonOperator, value: unknown];

/** The rows of `table` that meet every condition. */
export async function countWhere(db: Db, table: string, ...conditions: Condition[]): Promise<number> {
  let query = loose(db)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'));
  for (const [column, operator, value] of conditions) query = query.where(column, operator, value);
  const row = (await query.executeTakeFirstOrThrow()) as { n: number | string };
  return Number(row.n);
}

/** The account's rows of `table` (that meet every further condition). */
export function countOf(
  db: Db,
  table: string,
  accountId: number,
  ...conditions: Condition[]
): Promise<number> {
  return countWhere(db, table, ['account_id', '=', accountId], ...conditions);
}
