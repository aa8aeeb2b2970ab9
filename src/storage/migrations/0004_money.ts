import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  // A customer's stored payment methods. A card's number is never stored: the gateway's vault keeps it and hands
  // back `token`. A bank account's number and IBAN are sealed (SecretBox); only the last four digits are clear.
  await withId(db.schema.createTable('payment_methods'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('gateway_id', 'bigint', (c) => c.references('gateways.id'))
    .addColumn('method_type', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('is_primary', t.bool, (c) => c.notNull())
    .addColumn('is_valid', t.bool, (c) => c.notNull())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('card_type', 'text')
    .addColumn('name_on_card', 'text')
    .addColumn('last_name_on_card', 'text')
    .addColumn('expiry_month', 'integer')
    .addColumn('expiry_year', 'integer')
    .addColumn('debit_method', 'text')
    .addColumn('account_type', 'text')
    .addColumn('account_holder', 'text')
    .addColumn('bank', 'text')
    .addColumn('account_number_sealed', 'text')
    .addColumn('branch_code', 'text')
    .addColumn('iban_sealed', 'text')
    .addColumn('bic', 'text')
    .addColumn('routing_number', 'text')
    .addColumn('emandate_token', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payment_methods_customer')
    .on('payment_methods')
    .columns(['account_id', 'customer_id', 'id'])
    .execute();
  await db.schema
    .createIndex('payment_methods_account')
    .on('payment_methods')
    .columns(['account_id', 'id'])
    .execute();
  // One primary method per customer, whatever two concurrent requests do.
  await sql`create unique index payment_methods_one_primary on payment_methods (customer_id) where is_primary`.execute(
    db,
  );

  // Money received: `allocated_minor` is the sum of its allocations, kept in the allocating transaction.
  // `state`: settled (recorded or collected), pending (submitted to a gateway, not yet confirmed), failed.
  await withId(db.schema.createTable('payments'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('allocated_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('payment_date', t.date, (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('ref', 'text')
    .addColumn('payment_method_id', 'bigint', (c) => c.references('payment_methods.id'))
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addForeignKeyConstraint(
      'payments_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .addCheckConstraint('payments_allocated_within_amount', sql`allocated_minor between 0 and amount_minor`)
    .execute();
  await db.schema.createIndex('payments_account').on('payments').columns(['account_id', 'id']).execute();
  await db.schema
    .createIndex('payments_customer')
    .on('payments')
    .columns(['account_id', 'customer_id', 'id'])
    .execute();

  await withId(db.schema.createTable('credit_notes'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('allocated_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('credit_date', t.date, (c) => c.notNull())
    .addColumn('credit_number', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addForeignKeyConstraint(
      'credit_notes_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .addCheckConstraint(
      'credit_notes_allocated_within_amount',
      sql`allocated_minor between 0 and amount_minor`,
    )
    .execute();
  await db.schema
    .createIndex('credit_notes_number_unique')
    .on('credit_notes')
    .columns(['account_id', 'credit_number'])
    .unique()
    .execute();
  await db.schema
    .createIndex('credit_notes_customer')
    .on('credit_notes')
    .columns(['account_id', 'customer_id', 'id'])
    .execute();

  // Positive adjustments raise what is owed (allocation targets, like invoices); negative ones lower it (sources,
  // like payments). `allocated_minor` is what was allocated to (positive) or from (negative) the adjustment.
  await withId(db.schema.createTable('adjustments'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('adjustment_type', 'text', (c) => c.notNull())
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('allocated_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('adjustment_date', t.date, (c) => c.notNull())
    .addColumn('due_date', t.date)
    .addColumn('ref', 'text')
    .addColumn('memo', 'text')
    // Set on a credit issued for a subscription's cancellation or change (subscription_credits.adjustment_id).
    .addColumn('subscription_id', 'bigint', (c) => c.references('subscriptions.id'))
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addForeignKeyConstraint(
      'adjustments_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .addCheckConstraint(
      'adjustments_allocated_within_amount',
      sql`allocated_minor between 0 and amount_minor`,
    )
    .execute();
  await db.schema
    .createIndex('adjustments_customer')
    .on('adjustments')
    .columns(['account_id', 'customer_id', 'id'])
    .execute();
  await db.schema
    .createIndex('adjustments_account')
    .on('adjustments')
    .columns(['account_id', 'id'])
    .execute();

  // Every allocation of money: from a payment, a credit note or a negative adjustment, to an invoice or a
  // positive adjustment. One table, so allocationIDs are unique across kinds and a target's figures are one sum.
  await withId(db.schema.createTable('allocations'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'bigint', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'bigint', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addCheckConstraint('allocations_positive', sql`amount_minor > 0`)
    .execute();
  await db.schema
    .createIndex('allocations_source')
    .on('allocations')
    .columns(['account_id', 'source_type', 'source_id', 'id'])
    .execute();
  await db.schema
    .createIndex('allocations_target')
    .on('allocations')
    .columns(['account_id', 'target_type', 'target_id', 'id'])
    .execute();

  // AutoApply reads a customer's open invoices earliest first; without this index SQLite scans the account's.
  await db.schema
    .createIndex('invoices_customer_date')
    .on('invoices')
    .columns(['account_id', 'customer_id', 'invoice_date', 'invoice_num', 'id'])
    .execute();
  // Deleting a payment method asks whether anything still names it.
  await db.schema.createIndex('payments_payment_method').on('payments').column('payment_method_id').execute();
  await db.schema
    .createIndex('invoices_payment_method')
    .on('invoices')
    .column('customer_payment_method_id')
    .execute();
  await db.schema
    .createIndex('recurring_invoices_payment_method')
    .on('recurring_invoices')
    .column('customer_payment_method_id')
    .execute();

  // A pro-rata or full credit of a subscription is issued as a credit_note adjustment (subscription_credits.adjustment_id).
  await db.schema
    .createIndex('subscription_credits_unissued')
    .on('subscription_credits')
    .columns(['account_id', 'adjustment_id'])
    .execute();
}
