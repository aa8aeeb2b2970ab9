import { Migrator, sql } from 'kysely';
import { isPostgres } from './columns.ts';
import type { Migration, MigrationResultSet } from 'kysely';
import type { Db } from './database.ts';
import type { MigrationSealer } from './migrations/0067_sealed_provider_tokens.ts';

/**
 * What a migration that seals stored data seals with: the service's key, loaded only when a migration has rows to
 * seal (a fresh database has none).
 */
export interface MigrationSecrets {
  sealer?: () => MigrationSealer;
}

// Listed explicitly (not read from a folder) so the set is the same under tsx, vitest and any bundler. Each is loaded
// when the migrator runs: a database already at the latest (every start but the first, every command) loads none of
// them (78 modules, 60 ms; docs/benchmarks.md, "Bill run").
const migrations: Record<string, (secrets: MigrationSecrets) => Promise<Migration>> = {
  '0001_foundation': () => import('./migrations/0001_foundation.ts'),
  '0002_catalogue': () => import('./migrations/0002_catalogue.ts'),
  '0003_billing': () => import('./migrations/0003_billing.ts'),
  '0004_money': () => import('./migrations/0004_money.ts'),
  '0005_seller_details': () => import('./migrations/0005_seller_details.ts'),
  '0006_off_cycle_start': () => import('./migrations/0006_off_cycle_start.ts'),
  '0007_idempotency_lease': () => import('./migrations/0007_idempotency_lease.ts'),
  '0008_events': () => import('./migrations/0008_events.ts'),
  '0009_delivery_queue': () => import('./migrations/0009_delivery_queue.ts'),
  '0010_collections': () => import('./migrations/0010_collections.ts'),
  '0011_batches': () => import('./migrations/0011_batches.ts'),
  '0012_customer_collection': () => import('./migrations/0012_customer_collection.ts'),
  '0013_bank_mandates': () => import('./migrations/0013_bank_mandates.ts'),
  '0014_refunds': () => import('./migrations/0014_refunds.ts'),
  '0015_credit_note_numbers': () => import('./migrations/0015_credit_note_numbers.ts'),
  '0016_mail_new_first': () => import('./migrations/0016_mail_new_first.ts'),
  '0017_emandates': () => import('./migrations/0017_emandates.ts'),
  '0018_capture_sessions': () => import('./migrations/0018_capture_sessions.ts'),
  '0019_capture_challenges': () => import('./migrations/0019_capture_challenges.ts'),
  '0020_capture_address_failures': () => import('./migrations/0020_capture_address_failures.ts'),
  '0021_emandate_cancel': () => import('./migrations/0021_emandate_cancel.ts'),
  '0022_emandate_token_digest': () => import('./migrations/0022_emandate_token_digest.ts'),
  '0023_capture_claims': () => import('./migrations/0023_capture_claims.ts'),
  '0024_statement_period': () => import('./migrations/0024_statement_period.ts'),
  '0025_portal': () => import('./migrations/0025_portal.ts'),
  '0026_portal_self_service': () => import('./migrations/0026_portal_self_service.ts'),
  '0027_portal_revocation': () => import('./migrations/0027_portal_revocation.ts'),
  '0028_pricing_schemes': () => import('./migrations/0028_pricing_schemes.ts'),
  '0029_tax_inclusive': () => import('./migrations/0029_tax_inclusive.ts'),
  '0030_bill_cycle_day': () => import('./migrations/0030_bill_cycle_day.ts'),
  '0031_catalogue_revision': () => import('./migrations/0031_catalogue_revision.ts'),
  '0032_portal_contact_actions': () => import('./migrations/0032_portal_contact_actions.ts'),
  '0033_capture_sale_up_to_owed': () => import('./migrations/0033_capture_sale_up_to_owed.ts'),
  '0034_capture_session_token_out_of_events': () =>
    import('./migrations/0034_capture_session_token_out_of_events.ts'),
  '0035_capture_provider_setup': () => import('./migrations/0035_capture_provider_setup.ts'),
  '0036_payments_by_ref': () => import('./migrations/0036_payments_by_ref.ts'),
  '0037_collection_loop_settings': () => import('./migrations/0037_collection_loop_settings.ts'),
  '0038_invoice_reminders': () => import('./migrations/0038_invoice_reminders.ts'),
  '0039_counters_with_owners': () => import('./migrations/0039_counters_with_owners.ts'),
  '0040_gateway_report_day': () => import('./migrations/0040_gateway_report_day.ts'),
  '0041_billable_metrics': () => import('./migrations/0041_billable_metrics.ts'),
  '0042_usage_events': () => import('./migrations/0042_usage_events.ts'),
  '0043_metered_usage': () => import('./migrations/0043_metered_usage.ts'),
  '0044_entitlements': () => import('./migrations/0044_entitlements.ts'),
  '0045_usage_alerts': () => import('./migrations/0045_usage_alerts.ts'),
  '0046_metered_last_invoice': () => import('./migrations/0046_metered_last_invoice.ts'),
  '0047_coupons': () => import('./migrations/0047_coupons.ts'),
  '0048_credits': () => import('./migrations/0048_credits.ts'),
  '0049_wallet_auto_top_up': () => import('./migrations/0049_wallet_auto_top_up.ts'),
  '0050_progressive_billing': () => import('./migrations/0050_progressive_billing.ts'),
  '0051_portal_credit': () => import('./migrations/0051_portal_credit.ts'),
  '0052_progressive_discounts': () => import('./migrations/0052_progressive_discounts.ts'),
  '0053_charge_components': () => import('./migrations/0053_charge_components.ts'),
  '0054_portal_top_up_limits': () => import('./migrations/0054_portal_top_up_limits.ts'),
  '0055_tax_documents': () => import('./migrations/0055_tax_documents.ts'),
  '0056_live_accounts_test_gateway': () => import('./migrations/0056_live_accounts_test_gateway.ts'),
  '0057_capture_provider_refs': () => import('./migrations/0057_capture_provider_refs.ts'),
  '0058_sender_and_leftovers': () => import('./migrations/0058_sender_and_leftovers.ts'),
  '0059_live_accounts': () => import('./migrations/0059_live_accounts.ts'),
  '0060_late_charges_on_paid_invoices': () => import('./migrations/0060_late_charges_on_paid_invoices.ts'),
  '0062_batch_line_receipts': () => import('./migrations/0062_batch_line_receipts.ts'),
  '0063_netcash_uploads': () => import('./migrations/0063_netcash_uploads.ts'),
  '0064_bank_account_verification': () => import('./migrations/0064_bank_account_verification.ts'),
  '0065_debicheck_mandates': () => import('./migrations/0065_debicheck_mandates.ts'),
  '0066_debicheck_batches': () => import('./migrations/0066_debicheck_batches.ts'),
  // Made with the key: it seals what it finds.
  '0067_sealed_provider_tokens': async ({ sealer }) =>
    (await import('./migrations/0067_sealed_provider_tokens.ts')).sealedProviderTokens(sealer),
  '0069_username_key_unique': () => import('./migrations/0069_username_key_unique.ts'),
  '0070_usage_storage': () => import('./migrations/0070_usage_storage.ts'),
  '0071_tax_rule_rates': () => import('./migrations/0071_tax_rule_rates.ts'),
  '0072_subscription_pause': () => import('./migrations/0072_subscription_pause.ts'),
  '0073_subscription_activation': () => import('./migrations/0073_subscription_activation.ts'),
  '0074_retention': () => import('./migrations/0074_retention.ts'),
  '0075_portal_pause': () => import('./migrations/0075_portal_pause.ts'),
  '0076_resume_wait_for_payment': () => import('./migrations/0076_resume_wait_for_payment.ts'),
  '0077_charge_tax_positions': () => import('./migrations/0077_charge_tax_positions.ts'),
  '0078_reduction_tax_parts': () => import('./migrations/0078_reduction_tax_parts.ts'),
  '0079_keys_with_account': () => import('./migrations/0079_keys_with_account.ts'),
  '0080_time_event_keys': () => import('./migrations/0080_time_event_keys.ts'),
  '0081_credentials_version': () => import('./migrations/0081_credentials_version.ts'),
  '0082_open_money_indexes': () => import('./migrations/0082_open_money_indexes.ts'),
};

/** The migrations, loaded; those that seal given the key. */
async function migrationsWith(secrets: MigrationSecrets): Promise<Record<string, Migration>> {
  const loaded = Object.entries(migrations).map(async ([name, load]) => [name, await load(secrets)] as const);
  return Object.fromEntries(await Promise.all(loaded));
}

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

/**
 * NOTE: to find its own tables, Kysely's migrator lists the tables of every schema of a PostgreSQL database; when
 * another schema is dropped during that listing (another test file's, another deployment's), the listing fails
 * with "schema / relation / column ... does not exist" (3F000, 42P01, 42703) although nothing of ours changed.
 * Migrating again is safe (it runs under the migrator's lock, and only what is pending), so it is retried.
 */
const FOREIGN_SCHEMA_RACE = new Set(['3F000', '42P01', '42703']);
const MIGRATION_ATTEMPTS = 5;

export async function migrateToLatest(db: Db, secrets: MigrationSecrets = {}): Promise<string[]> {
  if (await isAtLatest(db)) return [];
  return migrate(db, secrets, (migrator) => migrator.migrateToLatest());
}

/**
 * Whether the database has applied every migration and nothing else, read from the migration table alone.
 * NOTE: before it migrates, Kysely's migrator lists every table and column of every schema of the database, twice
 * (a third of a second to over a second on PostgreSQL, more the more schemas share the database): every start of
 * the service and every command of the CLI paid it with nothing to do. Anything else (a table missing, a migration
 * pending, one this version does not know) goes to the migrator, under its lock, as before.
 */
async function isAtLatest(db: Db): Promise<boolean> {
  // The migrator's own table: in the connection's schema on PostgreSQL (migrationTableSchema), the file's on SQLite.
  const schema = await migrationTableSchema(db);
  const migrationTable = schema ? `${quoteIdentifier(schema)}.kysely_migration` : 'kysely_migration';
  const found = schema
    ? sql<{ found: string | null }>`select to_regclass(${migrationTable})::text as found`
    : sql<{ found: string | null }>`select name as found from sqlite_master where name = ${migrationTable}`;
  const { rows } = await found.execute(db);
  if (!rows[0]?.found) return false;
  const table = schema ? sql.id(schema, 'kysely_migration') : sql.id('kysely_migration');
  const applied = await sql<{ name: string }>`select name from ${table}`.execute(db);
  const appliedNames = new Set(applied.rows.map((row) => row.name));
  const knownNames = Object.keys(migrations);
  return appliedNames.size === knownNames.length && knownNames.every((name) => appliedNames.has(name));
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Applies the migrations up to `name` and no further: how a test of a migration that changes data writes rows as
 * they were before it.
 */
export async function migrateUpTo(db: Db, name: string, secrets: MigrationSecrets = {}): Promise<string[]> {
  if (!(name in migrations)) throw new Error(`no migration ${name}`);
  return migrate(db, secrets, (migrator) => migrator.migrateTo(name));
}

async function migrate(
  db: Db,
  secrets: MigrationSecrets,
  run: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<string[]> {
  const all = await migrationsWith(secrets);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => all },
    migrationTableSchema: await migrationTableSchema(db),
  });
  for (let attempt = 1; ; attempt += 1) {
    const result: MigrationResultSet = await run(migrator);
    const code = (result.error as { code?: unknown } | undefined)?.code;
    const raced = isPostgres(db) && typeof code === 'string' && FOREIGN_SCHEMA_RACE.has(code);
    if (raced && attempt < MIGRATION_ATTEMPTS) continue;
    if (result.error) throw result.error;
    return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }
}
