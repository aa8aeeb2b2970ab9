import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  // What happened: one row per event, written in the transaction of the change (a transactional outbox). The
  // payload is the exact JSON body webhooks deliver, so that every retry and replay sends the same bytes.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', t.instant, (c) => c.notNull())
    .addColumn('recorded_at', t.instant, (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('resource_version', 'integer', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_account').on('events').columns(['account_id', 'id']).execute();
  await db.schema
    .createIndex('events_resource')
    .on('events')
    .columns(['account_id', 'resource_type', 'resource_id'])
    .execute();
  await db.schema.createIndex('events_recorded').on('events').columns(['recorded_at']).execute();

  // The per-resource counter behind `resource.version`.
  await db.schema
    .createTable('resource_versions')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('resource_versions_pk', ['account_id', 'resource_type', 'resource_id'])
    .execute();

  // Events that time emits (an invoice falling past due, a trial about to end) are emitted once: the key of each
  // is kept here, longer than the events themselves.
  await db.schema
    .createTable('events_emitted_once')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('once_key', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('events_emitted_once_pk', ['account_id', 'once_key'])
    .execute();

  // Who changed what through the API or the CLI. Never changed once written; kept after events are purged.
  await withId(db.schema.createTable('audit_log'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('recorded_at', t.instant, (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'bigint')
    .addColumn('client_address', 'text')
    .addColumn('request_id', 'text')
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .execute();
  await db.schema.createIndex('audit_log_account').on('audit_log').columns(['account_id', 'id']).execute();

  await withId(db.schema.createTable('webhook_endpoints'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled_events', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', t.instant)
    .addColumn('failing_since', t.instant)
    .addColumn('last_recovered_at', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_account')
    .on('webhook_endpoints')
    .columns(['account_id', 'status'])
    .execute();

  await withId(db.schema.createTable('webhook_deliveries'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'bigint', (c) =>
      c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', t.instant)
    .addColumn('lease_until', t.instant)
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('delivered_at', t.instant)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .columns(['event_id'])
    .execute();

  await withId(db.schema.createTable('webhook_attempts'), t)
    .addColumn('delivery_id', 'bigint', (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('attempted_at', t.instant, (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'id'])
    .execute();

  // The bill run looks for what time moved each day (invoices falling past due, trials ending, subscriptions
  // ending or cancelled on a date): one indexed range per kind and account.
  await db.schema
    .createIndex('invoices_account_due')
    .on('invoices')
    .columns(['account_id', 'due_date'])
    .execute();
  for (const column of ['trial_end_date', 'end_date', 'cancel_date', 'start_date']) {
    await db.schema
      .createIndex(`subscriptions_account_${column}`)
      .on('subscriptions')
      .columns(['account_id', column])
      .execute();
  }
}
