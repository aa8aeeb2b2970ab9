// Whether PostgreSQL's tables can be distributed by account on Citus (docs/operations.md, "Beyond one PostgreSQL"):
// every table carries `account_id` in its primary key, its unique keys and its foreign keys, or is declared below a
// reference or a local table with the reason. Run: `npm run shards` (migrates a scratch database on
// TEST_DATABASE_URL's or DATABASE_URL's server, checks it, drops it); `npm run shards -- --sql` prints the
// statements that distribute the tables. test/platform/shardReadiness.postgres.test.ts runs the check in CI.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { fileURLToPath } from 'node:url';

export type Placement = 'reference' | 'local';

/**
 * The tables not distributed by `account_id`, and why. A reference table is copied whole to every node (a table
 * that every account's rows point at, small and seldom written); a local table stays on the coordinator, never
 * joined with an account's rows.
 */
export const NOT_BY_ACCOUNT: Record<string, { placement: Placement; reason: string }> = {
  accounts: {
    placement: 'reference',
    reason:
      'every table points at it; one row per account, written when settings change; its portal slug is unique across accounts',
  },
  capture_address_failures: {
    placement: 'local',
    reason: "a client address's failed card captures count across every account (the hosted pages' throttle)",
  },
  test_gateway_batches: {
    placement: 'local',
    reason:
      "the built-in test gateway's own ledger: it stands for a provider outside the service, keyed by gateway token",
  },
  test_gateway_charges: { placement: 'local', reason: 'as test_gateway_batches' },
  test_gateway_vault: { placement: 'local', reason: 'as test_gateway_batches' },
  kysely_migration: {
    placement: 'local',
    reason: 'the migrations applied, read by `billing migrate` on the coordinator',
  },
  kysely_migration_lock: { placement: 'local', reason: 'as kysely_migration' },
};

export interface Catalogue {
  tables: Map<string, { accountIdNotNull: boolean | undefined }>;
  uniqueKeys: { table: string; name: string; columns: string[] }[];
  foreignKeys: {
    table: string;
    name: string;
    columns: string[];
    referencedTable: string;
    referencedColumns: string[];
  }[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function readCatalogue(db: Kysely<any>): Promise<Catalogue> {
  const tables = await sql<{ table: string; account_id_not_null: boolean | null }>`
    select t.relname as table,
      (select a.attnotnull from pg_attribute a where a.attrelid = t.oid and a.attname = 'account_id'
       and not a.attisdropped) as account_id_not_null
    from pg_class t where t.relkind in ('r', 'p') and t.relnamespace = current_schema()::regnamespace`.execute(
    db,
  );
  const uniqueKeys = await sql<{ table: string; name: string; columns: string[] }>`
    select t.relname as table, x.relname as name,
      array(select a.attname from unnest(i.indkey) with ordinality k(n, p)
            join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n order by k.p)::text[] as columns
    from pg_index i join pg_class t on t.oid = i.indrelid join pg_class x on x.oid = i.indexrelid
    where i.indisunique and t.relnamespace = current_schema()::regnamespace`.execute(db);
  const foreignKeys = await sql<{
    table: string;
    name: string;
    columns: string[];
    referenced_table: string;
    referenced_columns: string[];
  }>`
    select t.relname as table, c.conname as name, r.relname as referenced_table,
      array(select a.attname from unnest(c.conkey) with ordinality k(n, p)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.p)::text[] as columns,
      array(select a.attname from unnest(c.confkey) with ordinality k(n, p)
            join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.p)::text[] as referenced_columns
    from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_class r on r.oid = c.confrelid
    where c.contype = 'f' and t.relnamespace = current_schema()::regnamespace`.execute(db);
  return {
    tables: new Map(
      tables.rows.map((row) => [row.table, { accountIdNotNull: row.account_id_not_null ?? undefined }]),
    ),
    uniqueKeys: uniqueKeys.rows,
    foreignKeys: foreignKeys.rows.map((row) => ({
      table: row.table,
      name: row.name,
      columns: row.columns,
      referencedTable: row.referenced_table,
      referencedColumns: row.referenced_columns,
    })),
  };
}

/** Whether a foreign key maps the referencing table's `account_id` to the referenced table's. */
function mapsAccount(key: Catalogue['foreignKeys'][number]): boolean {
  const position = key.columns.indexOf('account_id');
  return position >= 0 && key.referencedColumns[position] === 'account_id';
}

/** What keeps the catalogue's tables from being distributed by account, one line each; none when they can be. */
export function shardProblems(
  catalogue: Catalogue,
  declared: typeof NOT_BY_ACCOUNT = NOT_BY_ACCOUNT,
): string[] {
  const placementOf = (table: string) => declared[table]?.placement ?? 'distributed';
  const problems: string[] = [];
  for (const table of Object.keys(declared)) {
    if (!catalogue.tables.has(table))
      problems.push(`${table}: declared ${declared[table]!.placement} but not found`);
  }
  for (const [table, { accountIdNotNull }] of catalogue.tables) {
    if (placementOf(table) !== 'distributed') continue;
    if (accountIdNotNull === undefined) problems.push(`${table}: no account_id column`);
    else if (!accountIdNotNull) problems.push(`${table}: account_id may be null`);
  }
  for (const key of catalogue.uniqueKeys) {
    if (placementOf(key.table) === 'distributed' && !key.columns.includes('account_id'))
      problems.push(`${key.table}: unique key ${key.name} (${key.columns.join(', ')}) leaves account_id out`);
  }
  for (const key of catalogue.foreignKeys) {
    const from = placementOf(key.table);
    const to = placementOf(key.referencedTable);
    const what = `${key.table}: foreign key ${key.name} to ${key.referencedTable}`;
    if (from === 'local' || to === 'reference') continue;
    if (from === 'reference') problems.push(`${what}: a reference table may point only at reference tables`);
    else if (to === 'local') problems.push(`${what}: a distributed table may not point at a local table`);
    else if (!mapsAccount(key)) problems.push(`${what} does not map account_id to account_id`);
  }
  return problems.sort();
}

/**
 * The Citus statements that place the tables, in an order Citus accepts: reference tables first, then each
 * distributed table after the tables its foreign keys point at, all co-located with the first.
 */
export function distributionStatements(
  catalogue: Catalogue,
  schema: string,
  declared: typeof NOT_BY_ACCOUNT = NOT_BY_ACCOUNT,
): string[] {
  const name = (table: string) => `'${schema}.${table}'`;
  const statements = Object.entries(declared)
    .filter(([table]) => catalogue.tables.has(table))
    .map(([table, { placement }]) =>
      placement === 'reference'
        ? `select create_reference_table(${name(table)});`
        : `select citus_add_local_table_to_metadata(${name(table)});`,
    );
  const distributed = [...catalogue.tables.keys()].filter((table) => !declared[table]).sort();
  // A table is seen once, when first reached: a cycle of foreign keys ends there.
  const seen = new Set<string>();
  let anchor: string | undefined;
  const place = (table: string) => {
    if (seen.has(table)) return;
    seen.add(table);
    for (const key of catalogue.foreignKeys) {
      if (key.table === table && !declared[key.referencedTable]) place(key.referencedTable);
    }
    const colocation = anchor ? name(anchor) : "'none'";
    anchor ??= table;
    statements.push(
      `select create_distributed_table(${name(table)}, 'account_id', colocate_with => ${colocation});`,
    );
  };
  for (const table of distributed) place(table);
  return statements;
}

async function main(): Promise<void> {
  const { openStorage } = await import('../src/storage/database.ts');
  const { migrateToLatest } = await import('../src/storage/migrate.ts');
  const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!serverUrl?.startsWith('postgres'))
    throw new Error('set TEST_DATABASE_URL or DATABASE_URL to a PostgreSQL server');
  const scratch = `shard_check_${process.pid}`;
  const admin = openStorage({ dialect: 'postgres', url: serverUrl });
  await sql.raw(`create database ${scratch}`).execute(admin.db);
  const url = new URL(serverUrl);
  url.pathname = `/${scratch}`;
  const storage = openStorage({ dialect: 'postgres', url: url.toString() });
  try {
    await migrateToLatest(storage.db);
    const catalogue = await readCatalogue(storage.db);
    if (process.argv.includes('--sql')) {
      for (const statement of distributionStatements(catalogue, 'public')) console.log(statement);
      return;
    }
    const problems = shardProblems(catalogue);
    for (const problem of problems) console.log(problem);
    if (problems.length > 0) {
      console.log(`${problems.length} keys keep the tables from being distributed by account`);
      process.exitCode = 1;
    } else
      console.log(
        `every table can be distributed by account_id or is declared (${catalogue.tables.size} tables)`,
      );
  } finally {
    await storage.close();
    await sql.raw(`drop database ${scratch}`).execute(admin.db);
    await admin.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
