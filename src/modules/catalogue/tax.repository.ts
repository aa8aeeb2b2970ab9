import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { TaxRulesTable, TaxSettingsTable } from '../../storage/schema.ts';

export type TaxSettingRow = Omit<Selectable<TaxSettingsTable>, 'account_id'>;
export type TaxRuleRow = Omit<Selectable<TaxRulesTable>, 'account_id'>;
export type TaxRuleChanges = Pick<TaxRuleRow, 'perc' | 'country_id' | 'country_state_id' | 'tax_number'>;

const SETTING_COLUMNS = ['id', 'name', 'created_at'] as const;
const RULE_COLUMNS = [
  'id',
  'tax_setting_id',
  'perc',
  'country_id',
  'country_state_id',
  'tax_number',
] as const;

export function findTaxSetting(
  db: Db,
  accountId: number,
  settingId: number,
): Promise<TaxSettingRow | undefined> {
  return db
    .selectFrom('tax_settings')
    .select(SETTING_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', settingId)
    .executeTakeFirst();
}

export function findTaxSettings(
  db: Db,
  accountId: number,
  settingIds: readonly number[],
): Promise<TaxSettingRow[]> {
  if (settingIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('tax_settings')
    .select(SETTING_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...settingIds])
    .orderBy('id')
    .execute();
}

/**
 * Reads the setting and locks its row until the transaction ends, so that edits of its rules are made one at a
 * time. NOTE: a no-op update rather than SELECT ... FOR UPDATE, which SQLite does not know (as
 * lockVersionedItem).
 */
export function lockTaxSetting(
  db: Db,
  accountId: number,
  settingId: number,
): Promise<TaxSettingRow | undefined> {
  return db
    .updateTable('tax_settings')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('account_id', '=', accountId)
    .where('id', '=', settingId)
    .returning(SETTING_COLUMNS)
    .executeTakeFirst();
}

export function listTaxSettings(db: Db, accountId: number, page?: Page): Promise<TaxSettingRow[]> {
  return db
    .selectFrom('tax_settings')
    .select(SETTING_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .$if(page !== undefined, (qb) => qb.limit(page!.limit).offset(page!.offset))
    .execute();
}

/** The names of the account's settings (an account has a handful), to keep names unique. */
export function listTaxSettingNames(db: Db, accountId: number): Promise<{ id: number; name: string }[]> {
  return db.selectFrom('tax_settings').select(['id', 'name']).where('account_id', '=', accountId).execute();
}

/** The rules of the given settings, in creation order. */
export function listTaxRules(db: Db, accountId: number, settingIds: number[]): Promise<TaxRuleRow[]> {
  if (settingIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('tax_rules')
    .select(RULE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('tax_setting_id', 'in', settingIds)
    .orderBy('id')
    .execute();
}

export async function insertTaxSetting(db: Db, row: Insertable<TaxSettingsTable>): Promise<number> {
  const inserted = await db.insertInto('tax_settings').values(row).returning('id').executeTakeFirstOrThrow();
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

export async function insertTaxRules(db: Db, rows: Insertable<TaxRulesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('tax_rules').values(rows).execute();
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
    .set(changes)
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
    .deleteFrom('tax_rules')
    .where('account_id', '=', accountId)
    .where('tax_setting_id', '=', settingId)
    .where('id', 'in', ruleIds)
    .execute();
}
