import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A customer's prepaid credit in one currency (docs/credits.md, "Wallets"): one per customer and currency. Its
  // balance is the sum of its grants' entries, never a stored figure.
  await withId(db.schema.createTable('wallets'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('wallets_one_per_currency', ['account_id', 'customer_id', 'currency_code'])
    .execute();

  // Credit put in a wallet: granted (free) or paid (a top-up invoice paid in full; unique on that invoice, so the
  // "invoice paid" moment makes it once whoever pays). Its remaining amount is the sum of its entries.
  await withId(db.schema.createTable('credit_grants'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('currency_code', 'text', (c) => c.notNull())
    // paid | granted
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sqlPositive('amount_minor')))
    // 1 is used first.
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('expires_at', t.instant)
    // JSON arrays; null: no restriction.
    .addColumn('metric_codes', 'text')
    .addColumn('component_ids', 'text')
    .addColumn('note', 'text')
    .addColumn('top_up_invoice_id', 'bigint', (c) => c.unique())
    .addColumn('voided_at', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('credit_grants_wallet')
    .on('credit_grants')
    .columns(['account_id', 'wallet_id'])
    .execute();
  await db.schema
    .createIndex('credit_grants_customer')
    .on('credit_grants')
    .columns(['account_id', 'customer_id', 'currency_code'])
    .execute();

  // The append-only journal of every change to a grant's remaining amount: grant, consume (with the allocation
  // it made), release (a consumption given back), expire, void, refund. Amounts are positive; the kind signs them.
  await withId(db.schema.createTable('credit_entries'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('grant_id', 'bigint', (c) => c.notNull().references('credit_grants.id'))
    .addColumn('wallet_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sqlPositive('amount_minor')))
    .addColumn('invoice_id', 'bigint')
    .addColumn('allocation_id', 'bigint')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('credit_entries_grant')
    .on('credit_entries')
    .columns(['grant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('credit_entries_wallet')
    .on('credit_entries')
    .columns(['account_id', 'wallet_id', 'id'])
    .execute();
  await db.schema
    .createIndex('credit_entries_invoice')
    .on('credit_entries')
    .columns(['account_id', 'invoice_id'])
    .execute();

  // A paid top-up's invoice: never paid with credit, and its grant made once when it is paid in full.
  await withId(db.schema.createTable('wallet_top_ups'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('wallet_id', 'bigint', (c) => c.notNull().references('wallets.id'))
    .addColumn('invoice_id', 'bigint', (c) => c.notNull().unique())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
}

function sqlPositive(column: string) {
  return sql.raw(`${column} > 0`);
}
