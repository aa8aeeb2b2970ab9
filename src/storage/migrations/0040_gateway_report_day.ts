import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // gateway_calls.report_date: the day a call read a provider's daily report for (charge_events), so that whether a
  // day's report was read is asked of a date column, not of the request's JSON text (docs/gateways.md, "Late events
  // and webhooks"). Null for every other call.
  await db.schema.alterTable('gateway_calls').addColumn('report_date', t.date).execute();
  // The calls made before carry the day in their request, {"asOf":"YYYY-MM-DD"}.
  const asOf = t.isPostgres
    ? sql`cast(cast(request as jsonb) ->> 'asOf' as date)`
    : sql`json_extract(request, '$.asOf')`;
  await db
    .updateTable('gateway_calls')
    .set({ report_date: asOf })
    .where('operation', '=', 'charge_events')
    .execute();
  await db.schema
    .createIndex('gateway_calls_report_date')
    .on('gateway_calls')
    .columns(['account_id', 'gateway_id', 'report_date'])
    .where('report_date', 'is not', null)
    .execute();
}
