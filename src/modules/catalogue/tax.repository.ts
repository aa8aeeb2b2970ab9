import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { TaxRuleRatesTable, TaxRulesTable, TaxSettingsTable } from './tables.ts';

type TaxRuleRow = Omit<Selectable<TaxRulesTable>, 'account_id'>;

/** A tax setting without its rules (listTaxRules reads those). */
export interface TaxSettingRecord {
  id: number;
  name: string;
  createdAt: string;
}

export interface TaxRuleRecord {
  id: number;
  /** Exact decimal fraction, e.g. "0.15": the rate before the rule's first dated rate (TaxRuleRate). */
  perc: string;
  countryId: number | null;
  countryStateId: number | null;
  taxNumber: string | null;
}

/** A rule with the setting it belongs to, as listTaxRules reads several settings' rules at once. */
export interface SettingTaxRule extends TaxRuleRecord {
  taxSettingId: number;
}

/** What a rule says, as added or written over an existing rule. */
export type TaxRuleChanges = Omit<TaxRuleRecord, 'id'>;

/** A rule's rate from a date on (docs/tax.md, "Rates that change on a date"). */
export interface TaxRuleRate {
  id: number;
  taxSettingId: number;
  taxRuleId: number;
  /** Exact decimal fraction, e.g. "0.155". */
  perc: string;
  /** A calendar date in the account's time zone. */
  effectiveFrom: string;
}

function settingFromRow(row: Omit<Selectable<TaxSettingsTable>, 'account_id'>): TaxSettingRecord {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

function ruleFromRow(row: TaxRuleRow): SettingTaxRule {
  return {
    id: row.id,
    taxSettingId: row.tax_setting_id,
    perc: row.perc,
    countryId: row.country_id,
    countryStateId: row.country_state_id,
    taxNumber: row.tax_number,
  };
}

function ruleColumnsOf(rule: TaxRuleChanges) {
  return {
    perc: rule.perc,
    country_id: rule.countryId,
    country_state_id: rule.countryStateId,
    tax_number: rule.taxNumber,
  };
}

function rateFromRow(row: Omit<Selectable<TaxRuleRatesTable>, 'account_id' | 'created_at'>): TaxRuleRate {
  return {
    id: row.id,
    taxSettingId: row.tax_setting_id,
    taxRuleId: row.tax_rule_id,
    perc: row.perc,
    effectiveFrom: row.effective_from,
  };
}

const RATE_COLUMNS = ['id', 'tax_setting_id', 'tax_rule_id', 'perc', 'effective_from'] as const;

const SETTING_COLUMNS = ['id', 'name', 'created_at'] as const;
const RULE_COLUMNS = [
  'id',
  'tax_setting_id',
  'perc',
  'country_id',
  'country_state_id',
  'tax_number',
] as const;

export async function findTaxSetting(
  db: Db,
  accountId: number,
  settingId: number,
): Promise<TaxSettingRecord | undefined> {
  const row = await db
    .selectFrom('tax_settings')
    .select(SETTING_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', settingId)
    .executeTakeFirst();
  return row && settingFromRow(row);
}

export async function findTaxSettings(
  db: Db,
  accountId: number,
  settingIds: readonly number[],
): Promise<TaxSettingRecord[]> {
  if (settingIds.length === 0) return [];
  const rows = await db
    .selectFrom('tax_settings')
    .select(SETTING_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...settingIds])
    .orderBy('id')
    .execute();
  return rows.map(settingFromRow);
}

/**
 * Reads the setting and locks its row until the transaction ends, so that edits of its rules are made one at a
 * time. NOTE: a no-op update rather than SELECT ... FOR UPDATE, which SQLite does not know (as
 * lockVersionedItem).
 */
export async function lockTaxSetting(
  db: Db,
  accountId: number,
  settingId: number,
): Promise<TaxSettingRecord | undefined> {
  const row = await db
    .updateTable('tax_settings')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('account_id', '=', accountId)
    .where('id', '=', settingId)
    .returning(SETTING_COLUMNS)
    .executeTakeFirst();
  return row && settingFromRow(row);
}

export async function listTaxSettings(db: Db, accountId: number, page?: Page): Promise<TaxSettingRecord[]> {
  const rows = await db
    .selectFrom('tax_settings')
    .select(SETTING_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .$if(page !== undefined, (qb) => qb.limit(page!.limit).offset(page!.offset))
    .execute();
  return rows.map(settingFromRow);
}

/** The names of the account's settings (an account has a handful), to keep names unique. */
export function listTaxSettingNames(db: Db, accountId: number): Promise<{ id: number; name: string }[]> {
  return db.selectFrom('tax_settings').select(['id', 'name']).where('account_id', '=', accountId).execute();
}

/** The rules of the given settings, in creation order. */
export async function listTaxRules(
  db: Db,
  accountId: number,
  settingIds: number[],
): Promise<SettingTaxRule[]> {
  if (settingIds.length === 0) return [];
  const rows = await db
    .selectFrom('tax_rules')
    .select(RULE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('tax_setting_id', 'in', settingIds)
    .orderBy('id')
    .execute();
  return rows.map(ruleFromRow);
}

export async function insertTaxSetting(
  db: Db,
  accountId: number,
  name: string,
  createdAt: string,
): Promise<number> {
  const inserted = await db
    .insertInto('tax_settings')
    .values({ account_id: accountId, name, created_at: createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateTaxSettingName(
  db: Db,
  accountId: number,
  settingId: number,
  name: string,
): Promise<boolean> {
  const result = await db
    .updateTable('tax_settings')
    .set({ name })
    .where('account_id', '=', accountId)
    .where('id', '=', settingId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteTaxSetting(db: Db, accountId: number, settingId: number): Promise<boolean> {
  await db
    .deleteFrom('tax_rule_rates')
    .where('account_id', '=', accountId)
    .where('tax_setting_id', '=', settingId)
    .execute();
  await db
    .deleteFrom('tax_rules')
    .where('account_id', '=', accountId)
    .where('tax_setting_id', '=', settingId)
    .execute();
  const result = await db
    .deleteFrom('tax_settings')
    .where('account_id', '=', accountId)
    .where('id', '=', settingId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function insertTaxRules(
  db: Db,
  accountId: number,
  settingId: number,
  rules: readonly TaxRuleChanges[],
): Promise<void> {
  if (rules.length === 0) return;
  await db
    .insertInto('tax_rules')
    .values(
      rules.map((rule) => ({ ...ruleColumnsOf(rule), account_id: accountId, tax_setting_id: settingId })),
    )
    .execute();
}

export async function updateTaxRule(
  db: Db,
  accountId: number,
  settingId: number,
  ruleId: number,
  changes: TaxRuleChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('tax_rules')
    .set(ruleColumnsOf(changes))
    .where('account_id', '=', accountId)
    .where('tax_setting_id', '=', settingId)
    .where('id', '=', ruleId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteTaxRules(
  db: Db,
  accountId: number,
  settingId: number,
  ruleIds: number[],
): Promise<void> {
  if (ruleIds.length === 0) return;
  await db
    .deleteFrom('tax_rule_rates')
    .where('account_id', '=', accountId)
    .where('tax_setting_id', '=', settingId)
    .where('tax_rule_id', 'in', ruleIds)
    .execute();
  await db
    .deleteFrom('tax_rules')
    .where('account_id', '=', accountId)
    .where('tax_setting_id', '=', settingId)
    .where('id', 'in', ruleIds)
    .execute();
}

/** The dated rates of the given settings' rules, by date. */
export async function listTaxRuleRates(
  db: Db,
  accountId: number,
  settingIds: readonly number[],
): Promise<TaxRuleRate[]> {
  if (settingIds.length === 0) return [];
  const rows = await db
    .selectFrom('tax_rule_rates')
    .select(RATE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('tax_setting_id', 'in', [...settingIds])
    .orderBy('effective_from')
    .orderBy('id')
    .execute();
  return rows.map(rateFromRow);
}

export async function findTaxRuleRate(
  db: Db,
  accountId: number,
  settingId: number,
  rateId: number,
): Promise<TaxRuleRate | undefined> {
  const row = await db
    .selectFrom('tax_rule_rates')
    .select(RATE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('tax_setting_id', '=', settingId)
    .where('id', '=', rateId)
    .executeTakeFirst();
  return row && rateFromRow(row);
}

export async function insertTaxRuleRate(
  db: Db,
  accountId: number,
  rate: Omit<TaxRuleRate, 'id'>,
  createdAt: string,
): Promise<number> {
  const inserted = await db
    .insertInto('tax_rule_rates')
    .values({
      account_id: accountId,
      tax_setting_id: rate.taxSettingId,
      tax_rule_id: rate.taxRuleId,
      perc: rate.perc,
      effective_from: rate.effectiveFrom,
      created_at: createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateTaxRuleRatePerc(
  db: Db,
  accountId: number,
  rateId: number,
  perc: string,
): Promise<void> {
  await db
    .updateTable('tax_rule_rates')
    .set({ perc })
    .where('account_id', '=', accountId)
    .where('id', '=', rateId)
    .execute();
}

export async function deleteTaxRuleRate(
  db: Db,
  accountId: number,
  settingId: number,
  rateId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('tax_rule_rates')
    .where('account_id', '=', accountId)
    .where('tax_setting_id', '=', settingId)
    .where('id', '=', rateId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
