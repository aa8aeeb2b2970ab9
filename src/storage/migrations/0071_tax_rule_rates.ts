import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * A tax rule's rates from a date on (docs/tax.md, "Rates that change on a date"): the rule's own `perc` is the rate
 * before its first dated rate; each row here is the rate from `effective_from` (a calendar date in the account's
 * time zone) until the next one. A rate is scheduled ahead and may be withdrawn until its date.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await withId(db.schema.createTable('tax_rule_rates'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('tax_setting_id', 'bigint', (c) =>
      c.notNull().references('tax_settings.id').onDelete('cascade'),
    )
    .addColumn('tax_rule_id', 'bigint', (c) => c.notNull().references('tax_rules.id').onDelete('cascade'))
    .addColumn('perc', t.decimal, (c) => c.notNull())
    .addColumn('effective_from', t.date, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  // One rate per rule and day: which of two would apply that day would be arbitrary.
  await db.schema
    .createIndex('tax_rule_rates_rule_day')
    .on('tax_rule_rates')
    .columns(['tax_rule_id', 'effective_from'])
    .unique()
    .execute();
  await db.schema
    .createIndex('tax_rule_rates_setting')
    .on('tax_rule_rates')
    .columns(['account_id', 'tax_setting_id'])
    .execute();
}
