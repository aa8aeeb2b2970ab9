import { Migrator } from 'kysely';
import type { Migration, MigrationResultSet } from 'kysely';
import type { Db } from './database.ts';
import * as foundation from './migrations/0001_foundation.ts';

// Listed explicitly (not read from a folder) so the set is the same under tsx, vitest and any bundler.
const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
};

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
