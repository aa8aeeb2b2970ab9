import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  // Every call to a gateway (the outside world): what was asked (masked), what came back, how long it took, and
  // the operation that would undo it. Written outside the business transaction: the call happened either way.
  await withId(db.schema.createTable('gateway_calls'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('gateway_id', 'bigint', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('undo_operation', 'text')
    .addColumn('started_at', t.instant, (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('gateway_calls_account')
    .on('gateway_calls')
    .columns(['account_id', 'gateway_id', 'id'])
    .execute();

  // The built-in test gateway is a simulated provider: what a provider would keep on its side (its vault, and
  // the charges it made under each idempotency key) it keeps in these tables, apart from our own records.
  await db.schema
    .createTable('test_gateway_vault')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('gateway_id', 'bigint', (c) => c.notNull())
    .addColumn('scenario', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('test_gateway_charges')
    .addColumn('gateway_id', 'bigint', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('charge_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('raw_code', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addPrimaryKeyConstraint('test_gateway_charges_pk', ['gateway_id', 'idempotency_key'])
    .execute();

  // One row per attempt to collect an invoice through a gateway. The unique (invoice, attempt number) is what
  // makes a second charge for the same attempt impossible, whichever process tries; the idempotency key goes to
  // the gateway, so an attempt cut short by a crash is finished by asking again with the same key.
  await withId(db.schema.createTable('collection_attempts'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('invoice_id', 'bigint', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('attempt_no', 'integer', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('gateway_id', 'bigint', (c) => c.notNull())
    .addColumn('payment_method_id', 'bigint', (c) => c.notNull())
    // The vault token charged: an unanswered attempt is asked about again with it, whatever became of the method.
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('raw_code', 'text')
    .addColumn('retry_class', 'text')
    .addColumn('payment_id', 'bigint')
    // Business time (the account's clock) of the attempt, and the wall-clock time of its lease.
    .addColumn('started_at', t.instant, (c) => c.notNull())
    .addColumn('leased_at', t.instant, (c) => c.notNull())
    .addColumn('finished_at', t.instant)
    .addUniqueConstraint('collection_attempts_invoice_attempt', ['invoice_id', 'attempt_no'])
    .execute();
  await db.schema
    .createIndex('collection_attempts_open')
    .on('collection_attempts')
    .columns(['state', 'leased_at'])
    .execute();

  // Why a collected payment failed, as the gateway said (normalised reason and the rail's own code).
  await db.schema.alterTable('payments').addColumn('failure_reason', 'text').execute();
  await db.schema.alterTable('payments').addColumn('failure_code', 'text').execute();

  // The account's dunning: its retry days and attempts (null: the defaults of src/core/dunning.ts), and what
  // happens when retries run out (off by default).
  await db.schema.alterTable('accounts').addColumn('dunning_retry_days', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('dunning_max_attempts', 'integer').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('dunning_suspend_customer', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('dunning_cancel_subscriptions', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();

  await db.schema
    .createIndex('invoices_next_try')
    .on('invoices')
    .columns(['account_id', 'next_try_date'])
    .execute();
}
