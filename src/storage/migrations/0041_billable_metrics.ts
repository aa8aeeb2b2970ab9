import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // Billable metrics (docs/design/usage.md, "What a business does"): what a usage component's quantity is read
  // from. A metric's reading (aggregation, property, filters, group) never changes once made: its events' rollups
  // were made by it. Archived metrics refuse new events and keep their code.
  await withId(db.schema.createTable('billable_metrics'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('descrip', 'text')
    .addColumn('aggregation', 'text', (c) => c.notNull())
    .addColumn('property', 'text')
    // JSON: [{"property": "...", "values": ["...", ...]}, ...]; every filter must hold.
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('group_by', 'text')
    .addColumn('archived_at', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('billable_metrics_code', ['account_id', 'code'])
    .execute();
  // A usage component linked to a metric: its quantity for a period is the metric's aggregate over it.
  await db.schema
    .alterTable('components')
    .addColumn('metric_id', 'bigint', (c) => c.references('billable_metrics.id'))
    .execute();
}
