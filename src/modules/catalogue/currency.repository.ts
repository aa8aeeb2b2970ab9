import type { Db } from '../../storage/database.ts';

/** The codes of the account's currencies, in the order they were enabled. */
export async function listEnabledCurrencies(db: Db, accountId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('account_currencies')
    .select('currency_code')
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('currency_code')
    .execute();
  return rows.map((row) => row.currency_code);
}

export async function enabledAmong(db: Db, accountId: number, codes: readonly string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const rows = await db
    .selectFrom('account_currencies')
    .select('currency_code')
    .where('account_id', '=', accountId)
    .where('currency_code', 'in', [...codes])
    .execute();
  return rows.map((row) => row.currency_code);
}

export async function isCurrencyEnabled(db: Db, accountId: number, code: string): Promise<boolean> {
  const row = await db
    .selectFrom('account_currencies')
    .select('currency_code')
    .where('account_id', '=', accountId)
    .where('currency_code', '=', code)
    .executeTakeFirst();
  return row !== undefined;
}

/** False when the currency was enabled already. */
export async function insertEnabledCurrency(
  db: Db,
  accountId: number,
  code: string,
  at: string,
): Promise<boolean> {
  const inserted = await db
    .insertInto('account_currencies')
    .values({ account_id: accountId, currency_code: code, created_at: at })
    .onConflict((oc) => oc.columns(['account_id', 'currency_code']).doNothing())
    .returning('currency_code')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function deleteEnabledCurrency(db: Db, accountId: number, code: string): Promise<boolean> {
  const result = await db
    .deleteFrom('account_currencies')
    .where('account_id', '=', accountId)
    .where('currency_code', '=', code)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** How many package rates and component prices of the account are in the currency. */
export async function countCatalogueUses(db: Db, accountId: number, code: string): Promise<number> {
  const [rates, prices] = await Promise.all([
    db
      .selectFrom('package_version_rates')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .where('currency_code', '=', code)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('component_version_currencies')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .where('currency_code', '=', code)
      .executeTakeFirstOrThrow(),
  ]);
  return Number(rates.n) + Number(prices.n);
}
