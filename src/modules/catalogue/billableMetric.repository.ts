import type { Db } from '../../storage/database.ts';
import type { Selectable } from 'kysely';
import type { BillableMetricsTable } from './tables.ts';
import type { BillableMetric, MetricAggregation, MetricFilter } from './billableMetric.ts';

export function metricFromRow(row: Selectable<BillableMetricsTable>): BillableMetric {
  return {
    id: Number(row.id),
    code: row.code,
    name: row.name,
    descrip: row.descrip,
    aggregation: row.aggregation as MetricAggregation,
    property: row.property,
    filters: JSON.parse(row.filters) as MetricFilter[],
    groupBy: row.group_by,
    archivedAt: row.archived_at,
    createdAt: row.created_at,
  };
}

/** The account's metrics with these codes, archived ones included, keyed by code. */
export async function metricsByCodes(
  db: Db,
  accountId: number,
  codes: readonly string[],
): Promise<Map<string, BillableMetric>> {
  if (codes.length === 0) return new Map();
  const rows = await db
    .selectFrom('billable_metrics')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('code', 'in', [...new Set(codes)])
    .execute();
  return new Map(rows.map((row) => [row.code, metricFromRow(row)]));
}

/** The account's metrics with these ids, keyed by id. */
export async function metricsByIds(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<Map<number, BillableMetric>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('billable_metrics')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [Number(row.id), metricFromRow(row)]));
}
