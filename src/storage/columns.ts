import type { ColumnDataType, CreateTableBuilder, Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

/**
 * One map of column types per dialect; migrations are written once against it.
 * NOTE: SQLite keeps instants and decimals as text (its NUMERIC affinity would turn "1.10" into a float),
 * and booleans as 0/1 integers.
 */
export interface ColumnTypes {
  instant: ColumnDataType;
  date: ColumnDataType;
  decimal: ColumnDataType;
  bool: ColumnDataType;
  isPostgres: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function columnTypes(db: Kysely<any>): ColumnTypes {
  return isPostgres(db)
    ? { instant: 'timestamptz', date: 'date', decimal: 'numeric', bool: 'boolean', isPostgres: true }
    : { instant: 'text', date: 'text', decimal: 'text', bool: 'integer', isPostgres: false };
}

/** An auto-assigned integer primary key, increasing with creation order (lists are ordered by it). */
export function withId<T extends string>(
  builder: CreateTableBuilder<T, never>,
  types: ColumnTypes,
): CreateTableBuilder<T, 'id'> {
  return types.isPostgres
    ? builder.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : builder.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
