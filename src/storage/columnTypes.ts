import type { ColumnType, Generated } from 'kysely';

// The column types both dialects read alike (storage/database.ts makes them so).

/** SQLite hands back 0/1, PostgreSQL true/false; mappers read either with Boolean(). */
export type SqlBool = ColumnType<boolean | number, boolean, boolean>;
/** An instant, read as an ISO 8601 string in UTC on both dialects. */
export type Instant = ColumnType<string, string, string>;
export type Id = Generated<number>;
/** A calendar date (billing dates), read as `YYYY-MM-DD` on both dialects. */
export type PlainDateColumn = ColumnType<string, string, string>;
/** A column the database fills with its default when an insert leaves it out. */
export type Defaulted<T> = ColumnType<T, T | undefined, T>;

/** An exact decimal: text on SQLite, numeric on PostgreSQL; read as a string on both. */
export type Decimal = ColumnType<string, string, string>;
