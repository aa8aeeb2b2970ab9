import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  // Payment batches (spec part 2, Batches): a batch collects its lines through one gateway, in one currency, on
  // one action date. Its counts and total are read from its lines, never kept beside them.
  await withId(db.schema.createTable('batches'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('batch_token', 'text', (c) => c.notNull().unique())
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('gateway_id', 'bigint', (c) => c.notNull().references('gateways.id'))
    .addColumn('action_date', t.date, (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('build_error', 'text')
    // debit_order, ach or sepa: set by the first line, so that the batch makes one bank file.
    .addColumn('rail', 'text')
    // Made by the collection run for due debit-order invoices, not by a person.
    .addColumn('is_auto', t.bool, (c) => c.notNull().defaultTo(false))
    // The gateway's reference for the accepted batch (the file token, or the file's message id).
    .addColumn('provider_ref', 'text')
    // A bankfile gateway's batch: its file as built (sealed: it holds account numbers), served as is on every
    // download, and when it was first downloaded (taken to the bank).
    .addColumn('file_sealed', 'text')
    .addColumn('file_downloaded_at', t.instant)
    // The business date the gateway was last asked for its reports on the batch: once a day is enough.
    .addColumn('reports_read_on', t.date)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('submitted_at', t.instant)
    .addColumn('processed_at', t.instant)
    .addColumn('cancelled_at', t.instant)
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('batches_account').on('batches').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('batches_state').on('batches').columns(['account_id', 'state']).execute();

  // A batch's lines are payments (Pending until the bank answers); a line is its payment's, and goes with it.
  await db.schema
    .createTable('batch_lines')
    .addColumn('payment_id', 'bigint', (c) => c.primaryKey().references('payments.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('batch_id', 'bigint', (c) => c.notNull().references('batches.id').onDelete('cascade'))
    // The invoice the collection run put the line in for (null for a line a person added).
    .addColumn('invoice_id', 'bigint')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('batch_lines_batch').on('batch_lines').columns(['batch_id']).execute();

  // The provider's id of the charge an attempt made: what a refund names (a payment's Ref is the user's to edit).
  await db.schema.alterTable('collection_attempts').addColumn('charge_id', 'text').execute();

  // A refund through a gateway: claimed first (the money reserved in the ledger), then asked of the gateway with its
  // key, then confirmed or released. One left `started` by a crash or a lost answer is finished by the next run.
  await withId(db.schema.createTable('refund_attempts'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('payment_id', 'bigint', (c) => c.notNull())
    .addColumn('adjustment_id', 'bigint', (c) => c.notNull())
    .addColumn('gateway_id', 'bigint', (c) => c.notNull())
    .addColumn('charge_id', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('refund_id', 'text')
    .addColumn('raw_code', 'text')
    .addColumn('started_at', t.instant, (c) => c.notNull())
    .addColumn('leased_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('refund_attempts_open')
    .on('refund_attempts')
    .columns(['state', 'leased_at'])
    .execute();

  // The simulated provider records a refund as a row of its own beside the charge it refunds.
  await db.schema.alterTable('test_gateway_charges').addColumn('refunds_charge_id', 'text').execute();

  // The simulated provider's record of the batches submitted to a test gateway, with each line's outcome
  // (chosen by account number, docs/gateways.md) and the day the provider reports it.
  await db.schema
    .createTable('test_gateway_batches')
    .addColumn('gateway_id', 'bigint', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('provider_ref', 'text', (c) => c.notNull())
    .addColumn('results', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    // Cancelled before its action date: nothing is collected, nothing reported.
    .addColumn('cancelled_at', t.instant)
    .addPrimaryKeyConstraint('test_gateway_batches_pk', ['gateway_id', 'idempotency_key'])
    .execute();
}
