import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('account_currencies')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addPrimaryKeyConstraint('account_currencies_pk', ['account_id', 'currency_code'])
    .execute();

  // Accounts made before currencies were enabled one by one keep the currencies they already use.
  await db
    .insertInto('account_currencies')
    .columns(['account_id', 'currency_code', 'created_at'])
    .expression(db.selectFrom('accounts').select(['id', 'currency_code', 'created_at']))
    .execute();
  await db
    .insertInto('account_currencies')
    .columns(['account_id', 'currency_code', 'created_at'])
    .expression(
      db
        .selectFrom('customers')
        .select((eb) => ['account_id', 'currency_code', eb.fn.min('created_at').as('created_at')])
        .groupBy(['account_id', 'currency_code']),
    )
    .onConflict((oc) => oc.columns(['account_id', 'currency_code']).doNothing())
    .execute();
}
