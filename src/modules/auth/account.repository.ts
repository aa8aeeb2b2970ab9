import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import { cachedCredentials, credentialsChanged } from './credentialsCache.ts';
import type { Account, ServiceMemory } from '../../context.ts';
import type { AccountsTable } from './tables.ts';
import type { AccountChanges, ApiKeyInfo } from './account.ts';
import { accountChangesToRow, accountFromRow, apiKeyInfoFromRow } from './account.mapper.ts';

const ACCOUNT_COLUMNS = [
  'accounts.id',
  'accounts.name',
  'accounts.time_zone',
  'accounts.currency_code',
  'accounts.is_test',
  'accounts.test_clock_at',
  'accounts.invoice_due_days',
  'accounts.invoice_notes',
  'accounts.invoice_terms',
  'accounts.dunning_retry_days',
  'accounts.dunning_max_attempts',
  'accounts.dunning_suspend_customer',
  'accounts.dunning_cancel_subscriptions',
  'accounts.statement_period',
  'accounts.portal_slug',
  'accounts.portal_allow_cancel',
  'accounts.portal_allow_top_ups',
  'accounts.portal_pause',
  'accounts.max_pause_days',
  'accounts.max_pauses_per_year',
  'accounts.portal_top_up_limits',
  'accounts.portal_switch_package_ids',
  'accounts.portal_epoch',
  'accounts.is_tax_inclusive',
  'accounts.bill_cycle_day',
  'accounts.send_payment_receipts',
  'accounts.send_payment_failed_emails',
  'accounts.send_invoice_reminders',
  'accounts.invoice_reminder_days',
  'accounts.apply_credit_first',
  'accounts.auto_submit_batches',
  'accounts.late_charges_on_paid_invoices',
  'accounts.staff_email',
  'accounts.small_invoice_minor',
  'accounts.usage_grace_hours',
  'accounts.usage_alert_emails',
  'accounts.prepaid_credit_vat',
  'accounts.vat_basis',
  'accounts.send_credit_notes',
  'accounts.send_refund_notices',
  'accounts.send_low_balance_alerts',
  'accounts.send_cancellation_notices',
  'accounts.send_pause_notices',
  'accounts.copy_notices_to_staff',
] as const;

export async function insertAccount(
  db: Db,
  values: { name: string; timeZone: string; currencyCode: string; createdAt: string; isTest: boolean },
): Promise<number> {
  const row = await db
    .insertInto('accounts')
    .values({
      name: values.name,
      time_zone: values.timeZone,
      currency_code: values.currencyCode,
      created_at: values.createdAt,
      is_test: values.isTest,
      // A test account's clock starts at its creation and moves only when told to.
      test_clock_at: values.isTest ? values.createdAt : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The seller details columns (sellerDetails.ts), read only where an invoice or the settings need them. */
export type SellerColumns = Pick<
  AccountsTable,
  | 'seller_legal_name'
  | 'seller_address1'
  | 'seller_address2'
  | 'seller_city'
  | 'seller_postal_code'
  | 'seller_country_code'
  | 'seller_tax_number'
  | 'seller_company_number'
  | 'seller_email'
  | 'seller_phone'
  | 'payment_instructions'
  | 'sender_name'
  | 'reply_to'
>;

const SELLER_COLUMNS = [
  'seller_legal_name',
  'seller_address1',
  'seller_address2',
  'seller_city',
  'seller_postal_code',
  'seller_country_code',
  'seller_tax_number',
  'seller_company_number',
  'seller_email',
  'seller_phone',
  'payment_instructions',
  'sender_name',
  'reply_to',
] as const satisfies readonly (keyof SellerColumns)[];

export function findSellerColumns(db: Db, accountId: number): Promise<SellerColumns | undefined> {
  return db.selectFrom('accounts').select(SELLER_COLUMNS).where('id', '=', accountId).executeTakeFirst();
}

export function findLogoInfo(db: Db, accountId: number) {
  return db
    .selectFrom('account_logos')
    .select(['content_type', 'updated_at'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export function findLogo(db: Db, accountId: number) {
  return db
    .selectFrom('account_logos')
    .select(['content_type', 'image'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function saveLogo(
  db: Db,
  accountId: number,
  logo: { contentType: string; image: Buffer; updatedAt: string },
): Promise<void> {
  const values = { content_type: logo.contentType, image: logo.image, updated_at: logo.updatedAt };
  await db
    .insertInto('account_logos')
    .values({ account_id: accountId, ...values })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
    .execute();
}

export async function deleteLogo(db: Db, accountId: number): Promise<void> {
  await db.deleteFrom('account_logos').where('account_id', '=', accountId).execute();
}

export async function updateAccount(
  db: Db,
  memory: ServiceMemory,
  accountId: number,
  changes: AccountChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set(accountChangesToRow(changes))
    .where('id', '=', accountId)
    .executeTakeFirst();
  await credentialsChanged(db, memory);
  return result.numUpdatedRows > 0n;
}

/** A new portal epoch: the sessions and tokens the portal made under the earlier slug no longer work. */
export async function bumpPortalEpoch(db: Db, memory: ServiceMemory, accountId: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ portal_epoch: eb('portal_epoch', '+', 1) }))
    .where('id', '=', accountId)
    .execute();
  await credentialsChanged(db, memory);
}

export async function findAccountIdByPortalSlug(db: Db, slug: string): Promise<number | undefined> {
  const row = await db.selectFrom('accounts').select('id').where('portal_slug', '=', slug).executeTakeFirst();
  return row?.id;
}

export async function findAccount(db: Db, accountId: number): Promise<Account | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select(ACCOUNT_COLUMNS)
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row && accountFromRow(row);
}

export async function countAccounts(db: Db): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertApiKey(
  db: Db,
  values: { accountId: number; keyHash: string; keyPrefix: string; createdAt: string },
): Promise<number> {
  const row = await db
    .insertInto('api_keys')
    .values({
      account_id: values.accountId,
      key_hash: values.keyHash,
      key_prefix: values.keyPrefix,
      created_at: values.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const accountByKeyHash = preparedQuery((db, keyHash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select(ACCOUNT_COLUMNS)
    .select('api_keys.id as api_key_id')
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null),
);

/**
 * The account that a live (unrevoked) key belongs to. Every authenticated request runs this; the server's process
 * keeps what it found (credentialsCache.ts), and every write below that changes it says so. A test account's row
 * carries the clock its requests bill by, which a request to another process may have just moved: on PostgreSQL,
 * where that process's word arrives after its answer, every request reads it (docs/architecture.md, "Two clocks").
 */
export async function findAccountByKeyHash(
  db: Db,
  memory: ServiceMemory,
  keyHash: string,
): Promise<{ account: Account; apiKeyId: number } | undefined> {
  const row = await cachedCredentials(
    memory,
    keyHash,
    async () => (await accountByKeyHash(db, keyHash))[0],
    (found) => Boolean(found.is_test),
  );
  // Mapped on every request, as before the cache: each request gets an Account of its own.
  return row && { account: accountFromRow(row), apiKeyId: Number(row.api_key_id) };
}

export async function markApiKeyRevoked(
  db: Db,
  memory: ServiceMemory,
  accountId: number,
  keyId: number,
  revokedAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('account_id', '=', accountId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  await credentialsChanged(db, memory);
  return result.numUpdatedRows > 0n;
}

const API_KEY_INFO_COLUMNS = ['id', 'key_prefix', 'created_at', 'revoked_at'] as const;

export async function findApiKeys(
  db: Db,
  accountId: number,
  keyIds: readonly number[],
): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(API_KEY_INFO_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', keyIds.length > 0 ? [...keyIds] : [0])
    .orderBy('id')
    .execute();
  return rows.map(apiKeyInfoFromRow);
}

/** Operators name a key by id alone: whose it is, so that revoking it runs scoped to that account. */
export async function findApiKeyAccountId(db: Db, keyId: number): Promise<number | undefined> {
  const row = await db.selectFrom('api_keys').select('account_id').where('id', '=', keyId).executeTakeFirst();
  return row?.account_id;
}

export async function listApiKeys(db: Db, accountId: number): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(API_KEY_INFO_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map(apiKeyInfoFromRow);
}

/** Every account's id, in creation order (the bill run visits each). */
export async function listAccountIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('accounts').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** Moves a test account's clock, only forward. */
export async function setTestClock(
  db: Db,
  memory: ServiceMemory,
  accountId: number,
  at: string,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ test_clock_at: at })
    .where('id', '=', accountId)
    .where('is_test', '=', true)
    .where('test_clock_at', '<', at)
    .execute();
  await credentialsChanged(db, memory);
}
