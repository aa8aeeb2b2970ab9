import { Migrator, sql } from 'kysely';
import { isPostgres } from './columns.ts';
import type { Migration, MigrationResultSet } from 'kysely';
import type { Db } from './database.ts';
import * as foundation from './migrations/0001_foundation.ts';
import * as catalogue from './migrations/0002_catalogue.ts';
import * as billing from './migrations/0003_billing.ts';
import * as money from './migrations/0004_money.ts';

// Listed explicitly (not read from a folder) so the set is the same under tsx, vitest and any bundler.
const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_catalogue': catalogue,
  '0003_billing': billing,
  '0004_money': money,
};

/**
 * NOTE: on PostgreSQL, Kysely looks for its migration tables in every schema of the database; several schemas
 * (a test file each, or two services sharing a database) would see each other's. They are pinned to the
 * connection's own schema.
 */
async function migrationTableSchema(db: Db): Promise<string | undefined> {
  if (!isPostgres(db)) return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: await migrationTableSchema(db),
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
