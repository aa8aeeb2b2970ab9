import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { CreditEntriesTable, CreditGrantsTable, WalletsTable } from './tables.ts';
import { noSums } from './credit.ts';
import type { EntryKind, GrantKind, GrantSums, VatTreatment } from './credit.ts';

// Rows stop here: wallets, grants and journal entries as the credits module's domain types.

export interface Wallet {
  id: number;
  customerId: number;
  currencyCode: string;
  name: string | null;
  /** docs/credits.md, "Automatic top-ups": both null when off. */
  autoTopUpThresholdMinor: number | null;
  autoTopUpAmountMinor: number | null;
  /** Why the last automatic top-up could not be made (`code: reason`); null once one is. */
  autoTopUpProblem: string | null;
  /** docs/credits.md, "Low-balance alerts": null when off. */
  lowBalanceAlertMinor: number | null;
  /** Set when the balance crossed below the alert's threshold; cleared when it is back at or above it. */
  lowBalanceAlerted: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A wallet's automatic top-up and low-balance alert, as set on create and by PUT. */
export interface WalletSettings {
  autoTopUpThresholdMinor: number | null;
  autoTopUpAmountMinor: number | null;
  lowBalanceAlertMinor: number | null;
}

export interface CreditGrant {
  id: number;
  walletId: number;
  customerId: number;
  currencyCode: string;
  kind: GrantKind;
  amountMinor: number;
  priority: number;
  expiresAt: string | null;
  metricCodes: string[] | null;
  componentIds: number[] | null;
  note: string | null;
  topUpInvoiceId: number | null;
  voidedAt: string | null;
  vatTreatment: VatTreatment;
  createdAt: string;
}

export interface CreditEntry {
  id: number;
  grantId: number;
  walletId: number;
  kind: EntryKind;
  amountMinor: number;
  invoiceId: number | null;
  allocationId: number | null;
  createdAt: string;
}

const WALLET_COLUMNS = [
  'id',
  'customer_id',
  'currency_code',
  'name',
  'auto_top_up_threshold_minor',
  'auto_top_up_amount_minor',
  'auto_top_up_problem',
  'low_balance_alert_minor',
  'low_balance_alerted',
  'created_at',
  'updated_at',
] as const;

const minorOrNull = (value: number | string | null) => (value === null ? null : Number(value));

function walletFromRow(row: Pick<Selectable<WalletsTable>, (typeof WALLET_COLUMNS)[number]>): Wallet {
  return {
    id: Number(row.id),
    customerId: Number(row.customer_id),
    currencyCode: row.currency_code,
    name: row.name,
    autoTopUpThresholdMinor: minorOrNull(row.auto_top_up_threshold_minor),
    autoTopUpAmountMinor: minorOrNull(row.auto_top_up_amount_minor),
    autoTopUpProblem: row.auto_top_up_problem,
    lowBalanceAlertMinor: minorOrNull(row.low_balance_alert_minor),
    lowBalanceAlerted: Boolean(row.low_balance_alerted),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function settingsColumns(settings: WalletSettings) {
  return {
    auto_top_up_threshold_minor: settings.autoTopUpThresholdMinor,
    auto_top_up_amount_minor: settings.autoTopUpAmountMinor,
    low_balance_alert_minor: settings.lowBalanceAlertMinor,
  };
}

const GRANT_COLUMNS = [
  'id',
  'wallet_id',
  'customer_id',
  'currency_code',
  'kind',
  'amount_minor',
  'priority',
  'expires_at',
  'metric_codes',
  'component_ids',
  'note',
  'top_up_invoice_id',
  'voided_at',
  'vat_treatment',
  'created_at',
] as const;

function grantFromRow(row: Pick<Selectable<CreditGrantsTable>, (typeof GRANT_COLUMNS)[number]>): CreditGrant {
  return {
    id: Number(row.id),
    walletId: Number(row.wallet_id),
    customerId: Number(row.customer_id),
    currencyCode: row.currency_code,
    kind: row.kind as GrantKind,
    amountMinor: Number(row.amount_minor),
    priority: Number(row.priority),
    expiresAt: row.expires_at,
    metricCodes: row.metric_codes === null ? null : (JSON.parse(row.metric_codes) as string[]),
    componentIds: row.component_ids === null ? null : (JSON.parse(row.component_ids) as number[]),
    note: row.note,
    topUpInvoiceId: row.top_up_invoice_id === null ? null : Number(row.top_up_invoice_id),
    voidedAt: row.voided_at,
    vatTreatment: row.vat_treatment as VatTreatment,
    createdAt: row.created_at,
  };
}

const ENTRY_COLUMNS = [
  'id',
  'grant_id',
  'wallet_id',
  'kind',
  'amount_minor',
  'invoice_id',
  'allocation_id',
  'created_at',
] as const;

function entryFromRow(
  row: Pick<Selectable<CreditEntriesTable>, (typeof ENTRY_COLUMNS)[number]>,
): CreditEntry {
  return {
    id: Number(row.id),
    grantId: Number(row.grant_id),
    walletId: Number(row.wallet_id),
    kind: row.kind as EntryKind,
    amountMinor: Number(row.amount_minor),
    invoiceId: row.invoice_id === null ? null : Number(row.invoice_id),
    allocationId: row.allocation_id === null ? null : Number(row.allocation_id),
    createdAt: row.created_at,
  };
}

// Wallets.

export async function insertWallet(
  db: Db,
  accountId: number,
  wallet: { customerId: number; currencyCode: string; name: string | null } & WalletSettings,
  now: string,
): Promise<number> {
  const row = await db
    .insertInto('wallets')
    .values({
      account_id: accountId,
      customer_id: wallet.customerId,
      currency_code: wallet.currencyCode,
      name: wallet.name,
      ...settingsColumns(wallet),
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findWallets(db: Db, accountId: number, ids: readonly number[]): Promise<Wallet[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('wallets')
    .select(WALLET_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
  return rows.map(walletFromRow);
}

export async function findWalletOfCurrency(
  db: Db,
  accountId: number,
  customerId: number,
  currencyCode: string,
): Promise<Wallet | undefined> {
  const row = await db
    .selectFrom('wallets')
    .select(WALLET_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('currency_code', '=', currencyCode)
    .executeTakeFirst();
  return row && walletFromRow(row);
}

export async function listWalletsOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
  page: Page,
): Promise<Wallet[]> {
  const rows = await db
    .selectFrom('wallets')
    .select(WALLET_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(walletFromRow);
}

export async function updateWallet(
  db: Db,
  accountId: number,
  walletId: number,
  wallet: { name: string | null } & WalletSettings,
  now: string,
): Promise<void> {
  await db
    .updateTable('wallets')
    .set({ name: wallet.name, ...settingsColumns(wallet), updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', walletId)
    .execute();
}

/** The alert's state and the last automatic top-up's problem, as the balance checks leave them. */
export async function updateWalletState(
  db: Db,
  accountId: number,
  walletId: number,
  state: { lowBalanceAlerted: boolean; autoTopUpProblem: string | null },
  now: string,
): Promise<void> {
  await db
    .updateTable('wallets')
    .set({
      low_balance_alerted: state.lowBalanceAlerted,
      auto_top_up_problem: state.autoTopUpProblem,
      updated_at: now,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', walletId)
    .execute();
}

// Grants.

export interface NewGrant {
  walletId: number;
  customerId: number;
  currencyCode: string;
  kind: GrantKind;
  amountMinor: number;
  priority: number;
  expiresAt: string | null;
  metricCodes: readonly string[] | null;
  componentIds: readonly number[] | null;
  note: string | null;
  topUpInvoiceId: number | null;
  vatTreatment: VatTreatment;
}

export async function insertGrant(db: Db, accountId: number, grant: NewGrant, now: string): Promise<number> {
  const row = await db
    .insertInto('credit_grants')
    .values({
      account_id: accountId,
      wallet_id: grant.walletId,
      customer_id: grant.customerId,
      currency_code: grant.currencyCode,
      kind: grant.kind,
      amount_minor: grant.amountMinor,
      priority: grant.priority,
      expires_at: grant.expiresAt,
      metric_codes: grant.metricCodes === null ? null : JSON.stringify(grant.metricCodes),
      component_ids: grant.componentIds === null ? null : JSON.stringify(grant.componentIds),
      note: grant.note,
      top_up_invoice_id: grant.topUpInvoiceId,
      vat_treatment: grant.vatTreatment,
      voided_at: null,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findGrants(db: Db, accountId: number, ids: readonly number[]): Promise<CreditGrant[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('credit_grants')
    .select(GRANT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
  return rows.map(grantFromRow);
}

export async function listGrantsOfWallet(
  db: Db,
  accountId: number,
  walletId: number,
  page: Page,
): Promise<CreditGrant[]> {
  const rows = await db
    .selectFrom('credit_grants')
    .select(GRANT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('wallet_id', '=', walletId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(grantFromRow);
}

/** Every grant of the wallets not voided (their balances are summed from them). */
export async function listLiveGrantsOfWallets(
  db: Db,
  accountId: number,
  walletIds: readonly number[],
): Promise<CreditGrant[]> {
  if (walletIds.length === 0) return [];
  const rows = await db
    .selectFrom('credit_grants')
    .select(GRANT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('wallet_id', 'in', walletIds)
    .where('voided_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map(grantFromRow);
}

/** The customer's grants in a currency that may still pay: not voided, not expired at `now`. */
export async function listSpendableGrants(
  db: Db,
  accountId: number,
  of: { customerId: number; currencyCode: string },
  now: string,
): Promise<CreditGrant[]> {
  const rows = await db
    .selectFrom('credit_grants')
    .select(GRANT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', of.customerId)
    .where('currency_code', '=', of.currencyCode)
    .where('voided_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id')
    .execute();
  return rows.map(grantFromRow);
}

/** Which of these customers have a grant that may still pay, in any currency: the only ones issuing looks further at. */
export async function customersWithSpendableGrants(
  db: Db,
  accountId: number,
  customerIds: readonly number[],
  now: string,
): Promise<Set<number>> {
  if (customerIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('credit_grants')
    .select('customer_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('customer_id', 'in', customerIds)
    .where('voided_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
  return new Set(rows.map((row) => Number(row.customer_id)));
}

/** Grants past their expiry at `now`, not voided: the expiry job writes off what remains of them. */
export async function listGrantsPastExpiry(db: Db, accountId: number, now: string): Promise<CreditGrant[]> {
  const rows = await db
    .selectFrom('credit_grants')
    .select(GRANT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('voided_at', 'is', null)
    .where('expires_at', '<=', now)
    .orderBy('id')
    .execute();
  return rows.map(grantFromRow);
}

export async function markGrantVoided(
  db: Db,
  accountId: number,
  grantId: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('credit_grants')
    .set({ voided_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', grantId)
    .where('voided_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

// The journal.

export interface NewEntry {
  grantId: number;
  walletId: number;
  kind: EntryKind;
  amountMinor: number;
  invoiceId: number | null;
  allocationId: number | null;
}

export async function insertEntries(
  db: Db,
  accountId: number,
  entries: readonly NewEntry[],
  now: string,
): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('credit_entries')
    .values(
      entries.map((entry) => ({
        account_id: accountId,
        grant_id: entry.grantId,
        wallet_id: entry.walletId,
        kind: entry.kind,
        amount_minor: entry.amountMinor,
        invoice_id: entry.invoiceId,
        allocation_id: entry.allocationId,
        created_at: now,
      })),
    )
    .execute();
}

/** Each grant's journal summed by kind. NOTE: PostgreSQL's sum(bigint) is numeric, read as text. */
export async function sumsOfGrants(
  db: Db,
  accountId: number,
  grantIds: readonly number[],
): Promise<Map<number, GrantSums>> {
  const sums = new Map<number, GrantSums>();
  if (grantIds.length === 0) return sums;
  const rows = await db
    .selectFrom('credit_entries')
    .select((eb) => ['grant_id', 'kind', eb.fn.sum<number | string>('amount_minor').as('total')])
    .where('account_id', '=', accountId)
    .where('grant_id', 'in', grantIds)
    .groupBy(['grant_id', 'kind'])
    .execute();
  for (const row of rows) {
    const id = Number(row.grant_id);
    const of = sums.get(id) ?? noSums();
    of[row.kind as EntryKind] = Number(row.total);
    sums.set(id, of);
  }
  return sums;
}

/** A wallet's journal in the order written ('oldest' first, as the API pages it) or reversed ('newest'). */
export async function listEntriesOfWallet(
  db: Db,
  accountId: number,
  walletId: number,
  page: Page,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<CreditEntry[]> {
  const rows = await db
    .selectFrom('credit_entries')
    .select(ENTRY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('wallet_id', '=', walletId)
    .orderBy('id', order === 'oldest' ? 'asc' : 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(entryFromRow);
}

export async function listEntriesOfGrant(db: Db, accountId: number, grantId: number): Promise<CreditEntry[]> {
  const rows = await db
    .selectFrom('credit_entries')
    .select(ENTRY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('grant_id', '=', grantId)
    .orderBy('id')
    .execute();
  return rows.map(entryFromRow);
}

/** The consume and release entries on these invoices, in journal order. */
export async function listEntriesOnInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<CreditEntry[]> {
  if (invoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('credit_entries')
    .select(ENTRY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('id')
    .execute();
  return rows.map(entryFromRow);
}

/** A consumption or release of the customer's credit, as a statement lists it. */
export interface StatementCreditEntry {
  id: number;
  kind: 'consume' | 'release';
  amountMinor: number;
  invoiceId: number;
  createdAt: string;
}

/** The customer's consume and release entries in a currency, in journal order. */
export async function listStatementCreditEntries(
  db: Db,
  accountId: number,
  customerId: number,
  currencyCode: string,
): Promise<StatementCreditEntry[]> {
  const rows = await db
    .selectFrom('credit_entries')
    .innerJoin('credit_grants', 'credit_grants.id', 'credit_entries.grant_id')
    .select([
      'credit_entries.id',
      'credit_entries.kind',
      'credit_entries.amount_minor',
      'credit_entries.invoice_id',
      'credit_entries.created_at',
    ])
    .where('credit_entries.account_id', '=', accountId)
    .where('credit_grants.customer_id', '=', customerId)
    .where('credit_grants.currency_code', '=', currencyCode)
    .where('credit_entries.kind', 'in', ['consume', 'release'])
    .orderBy('credit_entries.id')
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    kind: row.kind as 'consume' | 'release',
    amountMinor: Number(row.amount_minor),
    invoiceId: Number(row.invoice_id),
    createdAt: row.created_at,
  }));
}
