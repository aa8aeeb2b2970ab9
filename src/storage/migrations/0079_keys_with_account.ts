import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { isPostgres } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * The tables this migration leaves as they are (docs/operations.md, "Beyond one PostgreSQL"): `accounts` is a
 * reference table, copied whole to every node; the others are the coordinator's own, never joined with an
 * account's rows; Kysely's two tables record the migrations.
 */
const NOT_BY_ACCOUNT = new Set([
  'accounts',
  'capture_address_failures',
  'test_gateway_batches',
  'test_gateway_charges',
  'test_gateway_vault',
  'kysely_migration',
  'kysely_migration_lock',
]);

/**
 * The unique keys that a statement's ON CONFLICT names, with `account_id` added on both databases so that one
 * statement serves both: PostgreSQL's are re-keyed below; SQLite's gain a unique index of the new columns beside
 * the key they extend.
 */
const CONFLICT_TARGETS = [
  {
    name: 'customer_custom_values_key',
    table: 'customer_custom_values',
    columns: ['customer_id', 'custom_field_id'],
  },
  {
    name: 'feature_values_subscription_key',
    table: 'feature_values',
    columns: ['subscription_id', 'feature_id'],
  },
  { name: 'feature_values_package_key', table: 'feature_values', columns: ['package_id', 'feature_id'] },
  {
    name: 'usage_alert_firings_once_key',
    table: 'usage_alert_firings',
    columns: ['alert_id', 'period_start'],
  },
];

/**
 * Every key of an account's rows names the account, so that PostgreSQL's tables can be distributed by `account_id`
 * on Citus, which holds a primary key, a unique key or a foreign key on one node only when it names the
 * distribution column (docs/operations.md, "Beyond one PostgreSQL"; `npm run shards` checks it).
 *
 * - `webhook_attempts` gains its delivery's `account_id`, on both databases.
 * - On PostgreSQL, each primary key and unique key of a table with `account_id` gains it as its last column (so a
 *   look-up by `id` alone still uses the key's index), and each foreign key between two such tables maps
 *   `account_id` to `account_id` as well: a row can no longer point at another account's row.
 * - SQLite runs on one machine and keeps its keys (its `id` is the table's rowid and its id generator); it gains only
 *   the unique indexes that a shared ON CONFLICT names (CONFLICT_TARGETS).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await giveAttemptsTheirAccount(db, postgres);
  if (postgres) await rekeyByAccount(db);
  else await addConflictTargets(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function addConflictTargets(db: Kysely<any>): Promise<void> {
  for (const target of CONFLICT_TARGETS) {
    await db.schema
      .createIndex(target.name)
      .on(target.table)
      .columns([...target.columns, 'account_id'])
      .unique()
      .execute();
  }
}

/** PostgreSQL: the foreign keys are dropped, the primary and unique keys re-made, then the foreign keys. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rekeyByAccount(db: Kysely<any>): Promise<void> {
  const schema = await currentSchema(db);
  const foreignKeys = await foreignKeysToRekey(db, schema);
  for (const key of foreignKeys)
    await sql.raw(`alter table ${key.table} drop constraint ${key.name}`).execute(db);
  for (const key of await uniqueKeysToRekey(db, schema)) await rekeyUnique(db, key);
  for (const key of foreignKeys) await addForeignKeyByAccount(db, key);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function addForeignKeyByAccount(db: Kysely<any>, key: ForeignKey): Promise<void> {
  const columns = [...key.columns, 'account_id'].join(', ');
  const referenced = [...key.referencedColumns, 'account_id'].join(', ');
  // A foreign key that sets its column to null on delete must leave account_id as it is.
  const onDelete = key.onDelete === 'set null' ? `set null (${key.columns.join(', ')})` : key.onDelete;
  await sql
    .raw(
      `alter table ${key.table} add constraint ${key.name} foreign key (${columns}) ` +
        `references ${key.referencedTable} (${referenced}) on delete ${onDelete}`,
    )
    .execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function currentSchema(db: Kysely<any>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]!.schema;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function giveAttemptsTheirAccount(db: Kysely<any>, postgres: boolean): Promise<void> {
  // SQLite adds a NOT NULL column only with a default; every insert names the account.
  await db.schema
    .alterTable('webhook_attempts')
    .addColumn('account_id', 'bigint', (column) => (postgres ? column : column.notNull().defaultTo(0)))
    .execute();
  await sql`
    update webhook_attempts set account_id = (
      select d.account_id from webhook_deliveries d where d.id = webhook_attempts.delivery_id
    )`.execute(db);
  if (postgres) {
    await sql`alter table webhook_attempts alter column account_id set not null`.execute(db);
    await sql`
      alter table webhook_attempts add constraint webhook_attempts_account_id_fkey
      foreign key (account_id) references accounts (id) on delete cascade`.execute(db);
  }
}

interface ForeignKey {
  table: string;
  name: string;
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  onDelete: string;
}

const ON_DELETE: Record<string, string> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
};

/** The foreign keys between two tables by account whose columns leave `account_id` out. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function foreignKeysToRekey(db: Kysely<any>, schema: string): Promise<ForeignKey[]> {
  const { rows } = await sql<{
    table: string;
    name: string;
    columns: string[];
    referenced_table: string;
    referenced_columns: string[];
    delete_action: string;
  }>`
    select t.relname as table, c.conname as name, r.relname as referenced_table, c.confdeltype as delete_action,
      array(select a.attname from unnest(c.conkey) with ordinality k(n, i)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i)::text[] as columns,
      array(select a.attname from unnest(c.confkey) with ordinality k(n, i)
            join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i)::text[] as referenced_columns
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_class r on r.oid = c.confrelid
    join pg_namespace s on s.oid = t.relnamespace
    where c.contype = 'f' and s.nspname = ${schema}
    order by t.relname, c.conname`.execute(db);
  return rows
    .filter((row) => !NOT_BY_ACCOUNT.has(row.table) && !NOT_BY_ACCOUNT.has(row.referenced_table))
    .filter((row) => !row.columns.includes('account_id'))
    .map((row) => ({
      table: row.table,
      name: row.name,
      columns: row.columns,
      referencedTable: row.referenced_table,
      referencedColumns: row.referenced_columns,
      onDelete: ON_DELETE[row.delete_action]!,
    }));
}

interface UniqueKey {
  table: string;
  name: string;
  columns: string[];
  /** A primary key, a unique constraint, or a unique index (which may be partial). */
  kind: 'p' | 'u' | 'index';
  predicate: string | null;
}

/** The primary and unique keys of the tables by account that leave `account_id` out. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function uniqueKeysToRekey(db: Kysely<any>, schema: string): Promise<UniqueKey[]> {
  const { rows } = await sql<{
    table: string;
    name: string;
    columns: string[];
    kind: 'p' | 'u' | 'index';
    predicate: string | null;
    has_account: boolean;
  }>`
    select t.relname as table, x.relname as name,
      coalesce((select c.contype::text from pg_constraint c where c.conindid = i.indexrelid and c.contype in ('p', 'u')),
               'index') as kind,
      pg_get_expr(i.indpred, i.indrelid) as predicate,
      array(select a.attname from unnest(i.indkey) with ordinality k(n, p)
            join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n order by k.p)::text[] as columns,
      exists (select 1 from pg_attribute a where a.attrelid = t.oid and a.attname = 'account_id') as has_account
    from pg_index i
    join pg_class t on t.oid = i.indrelid
    join pg_class x on x.oid = i.indexrelid
    join pg_namespace s on s.oid = t.relnamespace
    where i.indisunique and s.nspname = ${schema} and t.relkind = 'r'
    order by t.relname, x.relname`.execute(db);
  return rows.filter(
    (row) => !NOT_BY_ACCOUNT.has(row.table) && row.has_account && !row.columns.includes('account_id'),
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rekeyUnique(db: Kysely<any>, key: UniqueKey): Promise<void> {
  const columns = [...key.columns, 'account_id'].join(', ');
  if (key.kind === 'index') {
    const where = key.predicate ? ` where ${key.predicate}` : '';
    await sql.raw(`drop index ${key.name}`).execute(db);
    await sql.raw(`create unique index ${key.name} on ${key.table} (${columns})${where}`).execute(db);
    return;
  }
  const constraint = key.kind === 'p' ? 'primary key' : 'unique';
  await sql
    .raw(
      `alter table ${key.table} drop constraint ${key.name}, ` +
        `add constraint ${key.name} ${constraint} (${columns})`,
    )
    .execute(db);
}
