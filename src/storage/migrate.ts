import { Migrator, sql } from 'kysely';
import { isPostgres } from './columns.ts';
import type { Migration, MigrationResultSet } from 'kysely';
import type { Db } from './database.ts';
import * as foundation from './migrations/0001_foundation.ts';
import * as catalogue from './migrations/0002_catalogue.ts';
import * as billing from './migrations/0003_billing.ts';
import * as money from './migrations/0004_money.ts';
import * as sellerDetails from './migrations/0005_seller_details.ts';
import * as offCycleStart from './migrations/0006_off_cycle_start.ts';
import * as idempotencyLease from './migrations/0007_idempotency_lease.ts';
import * as events from './migrations/0008_events.ts';
import * as deliveryQueue from './migrations/0009_delivery_queue.ts';
import * as collections from './migrations/0010_collections.ts';
import * as batches from './migrations/0011_batches.ts';
import * as customerCollection from './migrations/0012_customer_collection.ts';
import * as bankMandates from './migrations/0013_bank_mandates.ts';
import * as refunds from './migrations/0014_refunds.ts';
import * as creditNoteNumbers from './migrations/0015_credit_note_numbers.ts';
import * as mailNewFirst from './migrations/0016_mail_new_first.ts';
import * as emandates from './migrations/0017_emandates.ts';
import * as captureSessions from './migrations/0018_capture_sessions.ts';
import * as captureChallenges from './migrations/0019_capture_challenges.ts';
import * as captureAddressFailures from './migrations/0020_capture_address_failures.ts';
import * as emandateCancel from './migrations/0021_emandate_cancel.ts';
import * as emandateTokenDigest from './migrations/0022_emandate_token_digest.ts';
import * as captureClaims from './migrations/0023_capture_claims.ts';
import * as statementPeriod from './migrations/0024_statement_period.ts';
import * as portal from './migrations/0025_portal.ts';
import * as portalSelfService from './migrations/0026_portal_self_service.ts';
import * as portalRevocation from './migrations/0027_portal_revocation.ts';
import * as pricingSchemes from './migrations/0028_pricing_schemes.ts';
import * as taxInclusive from './migrations/0029_tax_inclusive.ts';
import * as billCycleDay from './migrations/0030_bill_cycle_day.ts';
import * as catalogueRevision from './migrations/0031_catalogue_revision.ts';
import * as portalContactActions from './migrations/0032_portal_contact_actions.ts';
import * as captureSaleUpToOwed from './migrations/0033_capture_sale_up_to_owed.ts';
import * as captureSessionTokenOutOfEvents from './migrations/0034_capture_session_token_out_of_events.ts';
import * as captureProviderSetup from './migrations/0035_capture_provider_setup.ts';
import * as paymentsByRef from './migrations/0036_payments_by_ref.ts';
import * as collectionLoopSettings from './migrations/0037_collection_loop_settings.ts';
import * as invoiceReminders from './migrations/0038_invoice_reminders.ts';
import * as countersWithOwners from './migrations/0039_counters_with_owners.ts';
import * as gatewayReportDay from './migrations/0040_gateway_report_day.ts';
import * as billableMetrics from './migrations/0041_billable_metrics.ts';
import * as usageEvents from './migrations/0042_usage_events.ts';
import * as meteredUsage from './migrations/0043_metered_usage.ts';
import * as entitlements from './migrations/0044_entitlements.ts';
import * as usageAlerts from './migrations/0045_usage_alerts.ts';
import * as meteredLastInvoice from './migrations/0046_metered_last_invoice.ts';
import * as coupons from './migrations/0047_coupons.ts';
import * as credits from './migrations/0048_credits.ts';
import * as walletAutoTopUp from './migrations/0049_wallet_auto_top_up.ts';
import * as progressiveBilling from './migrations/0050_progressive_billing.ts';
import * as portalCredit from './migrations/0051_portal_credit.ts';
import * as progressiveDiscounts from './migrations/0052_progressive_discounts.ts';
import * as chargeComponents from './migrations/0053_charge_components.ts';
import * as portalTopUpLimits from './migrations/0054_portal_top_up_limits.ts';
import * as taxDocuments from './migrations/0055_tax_documents.ts';
import * as liveAccountsTestGateway from './migrations/0056_live_accounts_test_gateway.ts';
import * as captureProviderRefs from './migrations/0057_capture_provider_refs.ts';
import * as senderAndLeftovers from './migrations/0058_sender_and_leftovers.ts';
import * as liveAccounts from './migrations/0059_live_accounts.ts';
import * as lateChargesOnPaidInvoices from './migrations/0060_late_charges_on_paid_invoices.ts';
import * as batchLineReceipts from './migrations/0062_batch_line_receipts.ts';
import * as netcashUploads from './migrations/0063_netcash_uploads.ts';
import * as bankAccountVerification from './migrations/0064_bank_account_verification.ts';
import * as debiCheckMandates from './migrations/0065_debicheck_mandates.ts';
import * as debiCheckBatches from './migrations/0066_debicheck_batches.ts';
import { sealedProviderTokens } from './migrations/0067_sealed_provider_tokens.ts';
import type { MigrationSealer } from './migrations/0067_sealed_provider_tokens.ts';
import * as usernameKeyUnique from './migrations/0069_username_key_unique.ts';
import * as usageStorage from './migrations/0070_usage_storage.ts';
import * as taxRuleRates from './migrations/0071_tax_rule_rates.ts';
import * as subscriptionPause from './migrations/0072_subscription_pause.ts';
import * as subscriptionActivation from './migrations/0073_subscription_activation.ts';
import * as retention from './migrations/0074_retention.ts';
import * as portalPause from './migrations/0075_portal_pause.ts';
import * as resumeWaitForPayment from './migrations/0076_resume_wait_for_payment.ts';
import * as chargeTaxPositions from './migrations/0077_charge_tax_positions.ts';
import * as reductionTaxParts from './migrations/0078_reduction_tax_parts.ts';
import * as keysWithAccount from './migrations/0079_keys_with_account.ts';
import * as timeEventKeys from './migrations/0080_time_event_keys.ts';

/**
 * What a migration that seals stored data seals with: the service's key, loaded only when a migration has rows to
 * seal (a fresh database has none).
 */
export interface MigrationSecrets {
  sealer?: () => MigrationSealer;
}

// Listed explicitly (not read from a folder) so the set is the same under tsx, vitest and any bundler.
const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_catalogue': catalogue,
  '0003_billing': billing,
  '0004_money': money,
  '0005_seller_details': sellerDetails,
  '0006_off_cycle_start': offCycleStart,
  '0007_idempotency_lease': idempotencyLease,
  '0008_events': events,
  '0009_delivery_queue': deliveryQueue,
  '0010_collections': collections,
  '0011_batches': batches,
  '0012_customer_collection': customerCollection,
  '0013_bank_mandates': bankMandates,
  '0014_refunds': refunds,
  '0015_credit_note_numbers': creditNoteNumbers,
  '0016_mail_new_first': mailNewFirst,
  '0017_emandates': emandates,
  '0018_capture_sessions': captureSessions,
  '0019_capture_challenges': captureChallenges,
  '0020_capture_address_failures': captureAddressFailures,
  '0021_emandate_cancel': emandateCancel,
  '0022_emandate_token_digest': emandateTokenDigest,
  '0023_capture_claims': captureClaims,
  '0024_statement_period': statementPeriod,
  '0025_portal': portal,
  '0026_portal_self_service': portalSelfService,
  '0027_portal_revocation': portalRevocation,
  '0028_pricing_schemes': pricingSchemes,
  '0029_tax_inclusive': taxInclusive,
  '0030_bill_cycle_day': billCycleDay,
  '0031_catalogue_revision': catalogueRevision,
  '0032_portal_contact_actions': portalContactActions,
  '0033_capture_sale_up_to_owed': captureSaleUpToOwed,
  '0034_capture_session_token_out_of_events': captureSessionTokenOutOfEvents,
  '0035_capture_provider_setup': captureProviderSetup,
  '0036_payments_by_ref': paymentsByRef,
  '0037_collection_loop_settings': collectionLoopSettings,
  '0038_invoice_reminders': invoiceReminders,
  '0039_counters_with_owners': countersWithOwners,
  '0040_gateway_report_day': gatewayReportDay,
  '0041_billable_metrics': billableMetrics,
  '0042_usage_events': usageEvents,
  '0043_metered_usage': meteredUsage,
  '0044_entitlements': entitlements,
  '0045_usage_alerts': usageAlerts,
  '0046_metered_last_invoice': meteredLastInvoice,
  '0047_coupons': coupons,
  '0048_credits': credits,
  '0049_wallet_auto_top_up': walletAutoTopUp,
  '0050_progressive_billing': progressiveBilling,
  '0051_portal_credit': portalCredit,
  '0052_progressive_discounts': progressiveDiscounts,
  '0053_charge_components': chargeComponents,
  '0054_portal_top_up_limits': portalTopUpLimits,
  '0055_tax_documents': taxDocuments,
  '0056_live_accounts_test_gateway': liveAccountsTestGateway,
  '0057_capture_provider_refs': captureProviderRefs,
  '0058_sender_and_leftovers': senderAndLeftovers,
  '0059_live_accounts': liveAccounts,
  '0060_late_charges_on_paid_invoices': lateChargesOnPaidInvoices,
  '0062_batch_line_receipts': batchLineReceipts,
  '0063_netcash_uploads': netcashUploads,
  '0064_bank_account_verification': bankAccountVerification,
  '0065_debicheck_mandates': debiCheckMandates,
  '0066_debicheck_batches': debiCheckBatches,
  // Made with the key (migrationsWith): it seals what it finds.
  '0067_sealed_provider_tokens': sealedProviderTokens(undefined),
  '0069_username_key_unique': usernameKeyUnique,
  '0070_usage_storage': usageStorage,
  '0071_tax_rule_rates': taxRuleRates,
  '0072_subscription_pause': subscriptionPause,
  '0073_subscription_activation': subscriptionActivation,
  '0074_retention': retention,
  '0075_portal_pause': portalPause,
  '0076_resume_wait_for_payment': resumeWaitForPayment,
  '0077_charge_tax_positions': chargeTaxPositions,
  '0078_reduction_tax_parts': reductionTaxParts,
  '0079_keys_with_account': keysWithAccount,
  '0080_time_event_keys': timeEventKeys,
};

/** The migrations, those that seal given the key. */
function migrationsWith(secrets: MigrationSecrets): Record<string, Migration> {
  return { ...migrations, '0067_sealed_provider_tokens': sealedProviderTokens(secrets.sealer) };
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
  const all = migrationsWith(secrets);
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
