import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  // Account settings the billing needs: invoice defaults, the invoice number counter, and the test clock.
  await db.schema
    .alterTable('accounts')
    .addColumn('is_test', t.bool, (c) => c.notNull().defaultTo(t.isPostgres ? false : 0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('test_clock_at', t.instant).execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('invoice_due_days', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('invoice_notes', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('invoice_terms', 'text').execute();
  // invoiceNum is taken from here inside the transaction that finalizes an invoice: no gaps, no duplicates.
  await db.schema
    .alterTable('accounts')
    .addColumn('last_invoice_num', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await withId(db.schema.createTable('gateways'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('gateway_token', 'text', (c) => c.notNull().unique())
    .addColumn('gateway_name', 'text', (c) => c.notNull())
    .addColumn('friendly_name', 'text', (c) => c.notNull())
    .addColumn('gateway_type', 'text', (c) => c.notNull())
    .addColumn('is_active', t.bool, (c) => c.notNull())
    .addColumn('is_test_mode', t.bool, (c) => c.notNull())
    .addColumn('is_accept_cc', t.bool, (c) => c.notNull())
    .addColumn('is_accept_bank_dd', t.bool, (c) => c.notNull())
    .addColumn('is_enabled', t.bool, (c) => c.notNull())
    .addColumn('is_primary', t.bool, (c) => c.notNull())
    .addColumn('is_manual_recon', t.bool, (c) => c.notNull())
    /** Gateway credentials (API keys of the provider), sealed at rest; null for the built-in test gateway. */
    .addColumn('settings_sealed', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('gateways_account').on('gateways').columns(['account_id', 'id']).execute();

  await withId(db.schema.createTable('invoices'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('invoice_num', 'bigint')
    .addColumn('reference', 'text')
    .addColumn('po_number', 'text')
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('invoice_date', t.date, (c) => c.notNull())
    .addColumn('due_date', t.date, (c) => c.notNull())
    .addColumn('date_sent', t.instant)
    .addColumn('is_draft', t.bool, (c) => c.notNull())
    .addColumn('is_cancelled', t.bool, (c) => c.notNull())
    .addColumn('cancelled_at', t.instant)
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('collection_method', 'text')
    .addColumn('gateway_id', 'bigint', (c) => c.references('gateways.id'))
    .addColumn('customer_payment_method_id', 'bigint')
    .addColumn('num_tries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_try_date', t.instant)
    .addColumn('notes', 'text')
    .addColumn('terms', 'text')
    .addColumn('total_minor', 'bigint', (c) => c.notNull())
    // Maintained by the ledger in the transaction that allocates or removes money (docs/spec-decisions.md,
    // "Money movements").
    .addColumn('paid_actual_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('paid_pending_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('negative_adjs_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('subscription_id', 'bigint')
    .addColumn('recurring_invoice_id', 'bigint')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addForeignKeyConstraint(
      'invoices_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .execute();
  // NULLs are distinct on both dialects: drafts have no number yet, invoices without a reference are many.
  await db.schema
    .createIndex('invoices_num_unique')
    .on('invoices')
    .columns(['account_id', 'invoice_num'])
    .unique()
    .execute();
  await db.schema
    .createIndex('invoices_reference_unique')
    .on('invoices')
    .columns(['account_id', 'reference'])
    .unique()
    .execute();
  await db.schema.createIndex('invoices_account').on('invoices').columns(['account_id', 'id']).execute();
  await db.schema
    .createIndex('invoices_customer')
    .on('invoices')
    .columns(['account_id', 'customer_id', 'id'])
    .execute();
  await db.schema
    .createIndex('invoices_date')
    .on('invoices')
    .columns(['account_id', 'invoice_date', 'id'])
    .execute();
  await db.schema.createIndex('invoices_subscription').on('invoices').column('subscription_id').execute();

  await withId(db.schema.createTable('invoice_charges'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('line', 'integer', (c) => c.notNull())
    .addColumn('descrip', 'text', (c) => c.notNull())
    .addColumn('qty', t.decimal, (c) => c.notNull())
    .addColumn('unit_cost_ex', t.decimal, (c) => c.notNull())
    .addColumn('amount_ex_minor', 'bigint', (c) => c.notNull())
    .addColumn('amount_inc_minor', 'bigint', (c) => c.notNull())
    .addColumn('display_order', 'integer', (c) => c.notNull())
    .addColumn('period_start', t.date)
    .addColumn('period_end', t.date)
    .execute();
  await db.schema
    .createIndex('invoice_charges_invoice')
    .on('invoice_charges')
    .columns(['invoice_id', 'line'])
    .execute();

  await withId(db.schema.createTable('invoice_taxes'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('perc', t.decimal, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('invoice_taxes_invoice')
    .on('invoice_taxes')
    .columns(['invoice_id', 'id'])
    .execute();

  await withId(db.schema.createTable('subscriptions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('package_id', 'bigint', (c) => c.notNull().references('packages.id'))
    .addColumn('package_version_id', 'bigint', (c) => c.notNull().references('package_versions.id'))
    .addColumn('package_rate_term_id', 'bigint', (c) => c.notNull())
    // The price terms in force, copied from the rate term when chosen, so a bill run reads one row.
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('term', 'integer', (c) => c.notNull())
    .addColumn('term_type', 'text', (c) => c.notNull())
    .addColumn('charge_price', t.decimal, (c) => c.notNull())
    .addColumn('setup_fee', t.decimal, (c) => c.notNull())
    .addColumn('trial_fee', t.decimal, (c) => c.notNull())
    .addColumn('trial_period', 'integer', (c) => c.notNull())
    .addColumn('trial_period_type', 'text', (c) => c.notNull())
    .addColumn('start_date', t.date, (c) => c.notNull())
    .addColumn('end_date', t.date)
    .addColumn('trial_end_date', t.date)
    .addColumn('is_pro_rata', t.bool, (c) => c.notNull())
    .addColumn('first_prorata_sync_date', t.date)
    // Billing periods are counted from here: the start, the trial's end, the pro-rata sync date, a change.
    .addColumn('anchor_date', t.date, (c) => c.notNull())
    .addColumn('num_days_before_to_inv', 'integer', (c) => c.notNull())
    .addColumn('cancel_type', 'text')
    .addColumn('cancel_date', t.date)
    .addColumn('cancelled_at', t.instant)
    .addColumn('last_inv_date', t.date)
    .addColumn('last_renew_date', t.date)
    .addColumn('next_renew_date', t.date)
    // The day the bill run next invoices this subscription; null when nothing is left to bill.
    .addColumn('next_inv_date', t.date)
    .addColumn('period_count', 'integer', (c) => c.notNull())
    .addColumn('setup_billed', t.bool, (c) => c.notNull())
    // A change scheduled for the next renewal (JSON), applied by the bill run.
    .addColumn('pending_change', 'text')
    .addColumn('parked_reason', 'text')
    .addColumn('parked_at', t.instant)
    .addColumn('lease_until', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addForeignKeyConstraint(
      'subscriptions_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .execute();
  await db.schema
    .createIndex('subscriptions_account')
    .on('subscriptions')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('subscriptions_customer')
    .on('subscriptions')
    .columns(['account_id', 'customer_id', 'id'])
    .execute();
  await db.schema
    .createIndex('subscriptions_version')
    .on('subscriptions')
    .column('package_version_id')
    .execute();
  await db.schema
    .createIndex('subscriptions_due')
    .on('subscriptions')
    .columns(['next_inv_date', 'id'])
    .execute();

  // The components a subscription carries, with the version whose brackets price them.
  await withId(db.schema.createTable('subscription_components'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('component_id', 'bigint', (c) => c.notNull().references('components.id'))
    .addColumn('component_version_id', 'bigint', (c) => c.notNull().references('component_versions.id'))
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('subscription_components_unique', ['subscription_id', 'component_id'])
    .execute();
  await db.schema
    .createIndex('subscription_components_version')
    .on('subscription_components')
    .column('component_version_id')
    .execute();

  // Usage per component and usage period. A period's row is billed (invoice_id set) on the first invoice made
  // after the period ends; recording always targets the period containing today, so it never meets a billed row.
  await withId(db.schema.createTable('subscription_usage'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('component_id', 'bigint', (c) => c.notNull())
    .addColumn('period_start', t.date, (c) => c.notNull())
    .addColumn('period_end', t.date, (c) => c.notNull())
    .addColumn('num_units', t.decimal, (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('is_set_units', t.bool, (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.references('invoices.id'))
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('subscription_usage_unique', ['subscription_id', 'component_id', 'period_start'])
    .execute();

  // Every billed period of a subscription. The unique (subscription, period number) makes a second invoice
  // for the same period impossible, whichever process or retry tries it.
  await withId(db.schema.createTable('subscription_periods'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('period_no', 'integer', (c) => c.notNull())
    .addColumn('period_start', t.date, (c) => c.notNull())
    .addColumn('period_end', t.date, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('charge_price', t.decimal, (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.references('invoices.id'))
    .addUniqueConstraint('subscription_periods_unique', ['subscription_id', 'period_no'])
    .execute();

  // Credits owed to customers (cancellations, changes made now) until adjustments can issue them as credit notes.
  await withId(db.schema.createTable('subscription_credits'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('subscription_id', 'bigint', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('descrip', 'text', (c) => c.notNull())
    .addColumn('period_start', t.date, (c) => c.notNull())
    .addColumn('period_end', t.date, (c) => c.notNull())
    .addColumn('adjustment_id', 'bigint')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscription_credits_subscription')
    .on('subscription_credits')
    .columns(['subscription_id', 'id'])
    .execute();

  await withId(db.schema.createTable('recurring_invoices'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('term', 'integer', (c) => c.notNull())
    .addColumn('term_type', 'text', (c) => c.notNull())
    .addColumn('start_date', t.date, (c) => c.notNull())
    .addColumn('end_date', t.date)
    .addColumn('last_inv_date', t.date)
    .addColumn('last_renew_date', t.date)
    .addColumn('next_renew_date', t.date)
    .addColumn('next_inv_date', t.date)
    .addColumn('period_count', 'integer', (c) => c.notNull())
    .addColumn('num_days_before_to_inv', 'integer', (c) => c.notNull())
    .addColumn('is_cancelled', t.bool, (c) => c.notNull())
    .addColumn('cancelled_at', t.instant)
    .addColumn('suspended_at', t.instant)
    .addColumn('collection_method', 'text')
    .addColumn('gateway_id', 'bigint', (c) => c.references('gateways.id'))
    .addColumn('customer_payment_method_id', 'bigint')
    .addColumn('invoice_terms', 'text')
    .addColumn('invoice_notes', 'text')
    .addColumn('parked_reason', 'text')
    .addColumn('parked_at', t.instant)
    .addColumn('lease_until', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .addForeignKeyConstraint(
      'recurring_invoices_currency_enabled',
      ['account_id', 'currency_code'],
      'account_currencies',
      ['account_id', 'currency_code'],
    )
    .execute();
  await db.schema
    .createIndex('recurring_invoices_reference_unique')
    .on('recurring_invoices')
    .columns(['account_id', 'reference'])
    .unique()
    .execute();
  await db.schema
    .createIndex('recurring_invoices_account')
    .on('recurring_invoices')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('recurring_invoices_customer')
    .on('recurring_invoices')
    .columns(['account_id', 'customer_id', 'id'])
    .execute();
  await db.schema
    .createIndex('recurring_invoices_due')
    .on('recurring_invoices')
    .columns(['next_inv_date', 'id'])
    .execute();

  await withId(db.schema.createTable('recurring_invoice_charges'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('recurring_invoice_id', 'bigint', (c) =>
      c.notNull().references('recurring_invoices.id').onDelete('cascade'),
    )
    .addColumn('line', 'integer', (c) => c.notNull())
    .addColumn('descrip', 'text', (c) => c.notNull())
    .addColumn('qty', t.decimal, (c) => c.notNull())
    .addColumn('unit_cost_ex', t.decimal, (c) => c.notNull())
    .addColumn('display_order', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recurring_invoice_charges_parent')
    .on('recurring_invoice_charges')
    .columns(['recurring_invoice_id', 'line'])
    .execute();

  await withId(db.schema.createTable('recurring_invoice_taxes'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('recurring_invoice_id', 'bigint', (c) =>
      c.notNull().references('recurring_invoices.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('perc', t.decimal, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recurring_invoice_taxes_parent')
    .on('recurring_invoice_taxes')
    .columns(['recurring_invoice_id', 'id'])
    .execute();

  // One invoice per recurring-invoice period, as for subscriptions.
  await withId(db.schema.createTable('recurring_invoice_periods'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('recurring_invoice_id', 'bigint', (c) =>
      c.notNull().references('recurring_invoices.id').onDelete('cascade'),
    )
    .addColumn('period_no', 'integer', (c) => c.notNull())
    .addColumn('period_start', t.date, (c) => c.notNull())
    .addColumn('period_end', t.date, (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.notNull().references('invoices.id'))
    .addUniqueConstraint('recurring_invoice_periods_unique', ['recurring_invoice_id', 'period_no'])
    .execute();

  // Invoice e-mails: a copy recipient (the customer's EmailCC) and one attachment named by reference (kind and
  // ref, e.g. invoice_pdf and the invoice id), rendered by the worker when it delivers the message. Queuing stays
  // one small row per message, so a bill run that queues thousands of e-mails renders no document.
  await db.schema.alterTable('mail_outbox').addColumn('cc', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('attachment_kind', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('attachment_ref', 'text').execute();
}
