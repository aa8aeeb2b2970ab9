import type { Kysely } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';

/** A row as read whole, by column name. */
export type CopiedRow = Record<string, unknown>;

/** How the rows of one table are copied from one account to another. */
export interface AccountRowCopy {
  /**
   * Columns naming rows copied before, each with its old id → new id. A value the map lacks is a row that was not
   * copied: an error, since the copy would point at the other account's row.
   */
  references?: Record<string, ReadonlyMap<number, number>>;
  /** Only the rows this keeps (a subscription's own values, the currency the new account already has). */
  only?: (row: CopiedRow) => boolean;
  /** Columns the copy sets otherwise, from the row read (counters back to zero, lists of ids mapped anew). */
  change?: (row: CopiedRow) => CopiedRow;
  /** Whether the table has an `id` column (the default); the copies' new ids are mapped from it. */
  hasId?: boolean;
}

/**
 * Copies every row of `table` that one account owns to another, in id order, and returns the old id → new id of
 * each (docs/going-live.md, "Making the live account"). Each module calls it for its own tables only
 * (docs/architecture.md, "Tables and their owners"). NOTE: the rows are read whole (`*`) rather than by a list of
 * columns, so that a column a later migration adds is copied without anyone remembering to: a copy that dropped
 * one would give the live account a different setting or price than the one tested. Audit times (`created_at`,
 * `updated_at`) are the copy's.
 */
export async function copyAccountRows(
  db: Db,
  table: keyof Database & string,
  from: { accountId: number },
  to: { accountId: number; now: string },
  copy: AccountRowCopy = {},
): Promise<Map<number, number>> {
  // NOTE: the table is named by a variable, which Kysely's types cannot follow; the caller's module owns it.
  const loose = db as unknown as Kysely<Record<string, CopiedRow>>;
  const hasId = copy.hasId ?? true;
  let read = loose.selectFrom(table).selectAll().where('account_id', '=', from.accountId);
  if (hasId) read = read.orderBy('id');
  const rows = (await read.execute()) as CopiedRow[];
  const ids = new Map<number, number>();
  for (const row of rows) {
    if (copy.only && !copy.only(row)) continue;
    const { id, ...values } = row;
    values.account_id = to.accountId;
    for (const column of ['created_at', 'updated_at']) if (column in values) values[column] = to.now;
    for (const [column, map] of Object.entries(copy.references ?? {})) {
      const old = values[column];
      if (old === null || old === undefined) continue;
      const mapped = map.get(Number(old));
      if (mapped === undefined)
        throw new Error(`${table}.${column} names ${String(old)}, which was not copied`);
      values[column] = mapped;
    }
    Object.assign(values, copy.change?.(row));
    if (!hasId) {
      await loose.insertInto(table).values(values).execute();
      continue;
    }
    const inserted = await loose.insertInto(table).values(values).returning('id').executeTakeFirstOrThrow();
    ids.set(Number(id), Number(inserted.id));
  }
  return ids;
}

/** A JSON list of ids (a column such as `package_ids`) with each id mapped anew; null stays null. */
export function mappedIdList(json: unknown, map: ReadonlyMap<number, number>): string | null {
  if (json === null || json === undefined) return null;
  const ids = JSON.parse(String(json)) as number[];
  return JSON.stringify(ids.flatMap((id) => (map.has(id) ? [map.get(id)!] : [])));
}
